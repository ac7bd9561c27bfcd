/** A dependency-free page that renders /openapi/json: operations grouped by tag, with schemas. */
export function openapiPage(title: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${title}</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>
body{font:14px/1.5 system-ui,sans-serif;margin:0 auto;max-width:1100px;padding:1rem 2rem;color:#1d2330}
h1{font-size:1.6rem}h2{border-bottom:1px solid #ccd;margin-top:2rem}
details{border:1px solid #dde;border-radius:6px;margin:.4rem 0;background:#fafbff}
summary{cursor:pointer;padding:.4rem .6rem;font-family:ui-monospace,monospace}
.m{display:inline-block;min-width:4.5em;font-weight:700;text-transform:uppercase}
.get{color:#1769aa}.post{color:#18803c}.put,.patch{color:#a06000}.delete{color:#b3261e}
pre{background:#f0f2f8;padding:.6rem;overflow:auto;margin:.3rem .6rem}.d{padding:0 .6rem}
</style></head><body><h1>${title}</h1><p id="desc"></p><div id="ops">Loading /openapi/json ...</div>
<script>
fetch('/openapi/json').then(r => r.json()).then(doc => {
  document.getElementById('desc').textContent = doc.info.description || ''
  const groups = {}
  for (const [path, ops] of Object.entries(doc.paths))
    for (const [method, op] of Object.entries(ops)) (groups[(op.tags || ['Other'])[0]] ??= []).push({ path, method, op })
  const esc = s => String(s).replace(/[&<>]/g, c => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;' })[c])
  const json = v => '<pre>' + esc(JSON.stringify(v, null, 2)) + '</pre>'
  let html = ''
  for (const [tag, list] of Object.entries(groups)) {
    html += '<h2>' + esc(tag) + '</h2>'
    for (const { path, method, op } of list) {
      html += '<details><summary><span class="m ' + method + '">' + method + '</span> ' + esc(path) + ' - ' + esc(op.summary || '') + '</summary><div class="d">'
      if (op['x-permission']) html += '<p>Permission: <code>' + esc(op['x-permission']) + '</code></p>'
      if (op.parameters) html += '<b>Parameters</b>' + json(op.parameters)
      const body = op.requestBody && op.requestBody.content && op.requestBody.content['application/json']
      if (body) html += '<b>Request body</b>' + json(body.schema)
      for (const [code, r] of Object.entries(op.responses || {})) {
        const s = r.content && r.content['application/json'] && r.content['application/json'].schema
        html += '<b>' + code + '</b> ' + esc(r.description || '') + (s && code < 300 ? json(s) : '<br>')
      }
      html += '</div></details>'
    }
  }
  document.getElementById('ops').innerHTML = html
})
</script></body></html>`
}
