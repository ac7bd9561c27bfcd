// How the appliance serves the console: its shell, its embedded files with their content types
// and caching, a strict Content-Security-Policy, and the JSON error body for what is not there.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { gunzipSync } from 'node:zlib'
import { startTestAppliance, type TestAppliance } from '../../helpers/appliance.ts'

let t: TestAppliance
let shell: string
let base: string

beforeAll(async () => {
  t = await startTestAppliance()
  const res = await fetch(`${t.url}/console`)
  shell = await res.text()
  base = /src="(\/console\/assets\/[0-9a-f]{12}\/)app\.mjs"/.exec(shell)![1]!
})
afterAll(async () => {
  await t?.stop()
})

describe('serving the console', () => {
  test('/console is an HTML shell, never cached, with a CSP allowing only this origin and the hashed import map', async () => {
    const res = await fetch(`${t.url}/console`)
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8')
    expect(res.headers.get('cache-control')).toBe('no-store')
    expect(res.headers.get('x-content-type-options')).toBe('nosniff')
    const csp = res.headers.get('content-security-policy')!
    expect(csp).toContain("default-src 'none'")
    expect(csp).toContain("connect-src 'self'")
    expect(csp).toContain("frame-ancestors 'none'")
    expect(csp).not.toContain('unsafe-eval')
    // the one inline script, the import map, is allowed by its hash and nothing else inline is
    const importMap = /<script type="importmap">([^<]*)<\/script>/.exec(shell)![1]!
    const hash = new Bun.CryptoHasher('sha256').update(importMap).digest('base64')
    expect(csp).toContain(`script-src 'self' 'sha256-${hash}'`)
    expect(Object.keys(JSON.parse(importMap).imports).sort()).toEqual(['htm', 'preact', 'preact/hooks', 'uplot', 'wavesurfer.js'])
    expect(shell).not.toMatch(/https?:\/\//)
  })

  test('files are served with their content type, cached for a year under a content-hash folder, gzipped when asked', async () => {
    const js = await fetch(`${t.url}${base}app.mjs`, { headers: { 'accept-encoding': 'identity' } })
    expect(js.status).toBe(200)
    expect(js.headers.get('content-type')).toBe('text/javascript; charset=utf-8')
    expect(js.headers.get('cache-control')).toBe('public, max-age=31536000, immutable')
    const plain = await js.text()
    expect(plain).toContain("from 'preact'")
    const css = await fetch(`${t.url}${base}console.css`)
    expect(css.headers.get('content-type')).toBe('text/css; charset=utf-8')
    const zipped = await fetch(`${t.url}${base}app.mjs`, { headers: { 'accept-encoding': 'gzip' }, decompress: false } as RequestInit)
    expect(zipped.headers.get('content-encoding')).toBe('gzip')
    expect(zipped.headers.get('vary')).toBe('accept-encoding')
    expect(new TextDecoder().decode(gunzipSync(new Uint8Array(await zipped.arrayBuffer())))).toBe(plain)
    for (const name of ['vendor/preact.mjs', 'vendor/preact-hooks.mjs', 'vendor/htm.mjs', 'vendor/uplot.mjs', 'vendor/uplot.css', 'vendor/wavesurfer.mjs', 'pages/call.mjs']) {
      expect([name, (await fetch(`${t.url}${base}${name}`)).status]).toEqual([name, 200])
    }
  })

  test('an unknown file or an old version folder gets 404 with the JSON error body', async () => {
    for (const path of [`${base}nope.mjs`, '/console/assets/000000000000/app.mjs', `${base}../../../package.json`]) {
      const res = await fetch(`${t.url}${path}`)
      expect([path, res.status]).toEqual([path, 404])
      const body = (await res.json()) as any
      expect(body.error.code).toBe('not_found')
      expect(body.error.requestId).toBeString()
    }
  })

  test('the favicon is served at /favicon.ico (browsers ask for it on every load) and at the icon the shell links, both from the embedded files', async () => {
    const ico = await fetch(`${t.url}/favicon.ico`, { headers: { 'accept-encoding': 'identity' } })
    expect(ico.status).toBe(200)
    expect(ico.headers.get('content-type')).toBe('image/svg+xml')
    const svg = await ico.text()
    expect(svg).toStartWith('<svg')
    const href = /<link rel="icon" type="image\/svg\+xml" href="([^"]+)">/.exec(shell)![1]!
    expect(href).toBe(`${base}favicon.svg`)
    const linked = await fetch(`${t.url}${href}`, { headers: { 'accept-encoding': 'identity' } })
    expect(linked.status).toBe(200)
    expect(await linked.text()).toBe(svg)
  })

  test('the console is not part of the API description', async () => {
    const doc = (await (await fetch(`${t.url}/openapi/json`)).json()) as any
    expect(Object.keys(doc.paths).filter((p) => p.startsWith('/console'))).toEqual([])
  })
})
