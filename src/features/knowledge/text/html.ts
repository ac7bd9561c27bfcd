// Text out of an HTML page, in one linear pass over at most the document size limit: headings
// become Markdown headings (so chunks follow them), list items "- " lines, table cells "; "
// separated, and what is not content (script, style, head, nav, svg, template, comments) is
// dropped. Pure.

/** Elements whose whole content is skipped. */
const SKIPPED = new Set(['script', 'style', 'head', 'nav', 'noscript', 'svg', 'template', 'iframe', 'object', 'select', 'button'])
/** Elements that end a line of text where they open or close. */
const BLOCKS = new Set([
  'address', 'article', 'aside', 'blockquote', 'body', 'dd', 'details', 'div', 'dl', 'dt', 'fieldset', 'figcaption', 'figure', 'footer', 'form', 'header', 'hr', 'html',
  'main', 'ol', 'p', 'pre', 'section', 'summary', 'table', 'tbody', 'thead', 'tfoot', 'tr', 'ul', 'caption',
])

const NAMED: Record<string, string> = {
  amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ', ndash: '–', mdash: '—', lsquo: '‘', rsquo: '’', ldquo: '“', rdquo: '”',
  hellip: '…', copy: '©', reg: '®', trade: '™', euro: '€', pound: '£', middot: '·', bull: '•', deg: '°', times: '×', eacute: 'é', egrave: 'è', uuml: 'ü', ouml: 'ö', auml: 'ä', ccedil: 'ç', ntilde: 'ñ',
}

/** Decodes character references; unknown ones stay as written. */
export function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-fA-F]{1,6}|#[0-9]{1,7}|[a-zA-Z]{2,8});/g, (whole, ref: string) => {
    if (ref[0] === '#') {
      const code = ref[1] === 'x' || ref[1] === 'X' ? parseInt(ref.slice(2), 16) : parseInt(ref.slice(1), 10)
      return code > 0 && code <= 0x10ffff && (code < 0xd800 || code > 0xdfff) ? String.fromCodePoint(code) : ''
    }
    return NAMED[ref.toLowerCase()] ?? whole
  })
}

export interface HtmlText {
  /** The <title>, or the first heading; '' when neither. */
  title: string
  /** Markdown-like text: '#' headings, '- ' list items, paragraphs between blank lines. */
  text: string
  /** The page runs script: a <script> element, an inline event handler or a javascript: URL. */
  runsScript: boolean
}

/** Attributes that run script; tested on one tag's text at a time, so the work stays linear. */
const HANDLER = /\son[a-z]+\s*=|(href|src|action|formaction|data)\s*=\s*["']?\s*javascript:/i

export function htmlToText(html: string): HtmlText {
  const out: string[] = []
  let title = ''
  let skipping: string | null = null
  let inTitle = false
  let runsScript = false
  let i = 0
  const n = html.length
  while (i < n) {
    const lt = html.indexOf('<', i)
    const textEnd = lt < 0 ? n : lt
    if (textEnd > i) {
      const raw = html.slice(i, textEnd)
      if (inTitle) title += raw
      else if (!skipping) out.push(raw.replace(/\s+/g, ' '))
    }
    if (lt < 0) break
    if (html.startsWith('<!--', lt)) {
      const end = html.indexOf('-->', lt + 4)
      i = end < 0 ? n : end + 3
      continue
    }
    const gt = html.indexOf('>', lt + 1)
    if (gt < 0) break
    const tag = /^<\s*(\/?)\s*([a-zA-Z][a-zA-Z0-9-]*)/.exec(html.slice(lt, Math.min(gt + 1, lt + 64)))
    i = gt + 1
    if (!tag) continue
    const closing = tag[1] === '/'
    const name = tag[2]!.toLowerCase()
    if (name === 'script' || (!closing && HANDLER.test(html.slice(lt, gt)))) runsScript = true
    if (name === 'title') {
      inTitle = !closing && !skipping
      if (!closing && skipping === 'head') inTitle = true
      continue
    }
    if (skipping) {
      if (closing && name === skipping) skipping = null
      continue
    }
    if (!closing && SKIPPED.has(name) && !html.slice(lt, gt).endsWith('/')) {
      skipping = name
      continue
    }
    if (/^h[1-6]$/.test(name)) out.push(closing ? '\n\n' : `\n\n${'#'.repeat(Number(name[1]))} `)
    else if (name === 'li') out.push(closing ? '' : '\n- ')
    else if (name === 'br') out.push('\n')
    else if (name === 'td' || name === 'th') out.push(closing ? '; ' : '')
    else if (name === 'tr') out.push(closing ? '' : '\n')
    else if (BLOCKS.has(name)) out.push('\n\n')
  }
  const text = decodeEntities(out.join(''))
    .split('\n')
    .map((l) => l.replace(/[ \t\u00a0]+/g, ' ').replace(/(; )+$/, '').trim())
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim()
  const heading = /^#{1,6} (.+)$/m.exec(text)
  return { title: decodeEntities(title).replace(/\s+/g, ' ').trim() || heading?.[1]?.trim() || '', text, runsScript }
}
