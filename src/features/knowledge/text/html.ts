// Text out of an HTML page, read by parse5 (the WHATWG tokenizer and tree builder, as a browser
// reads it: comments, character references and attributes are what the browser would see, so
// `<!--><script>`, `jav&#x61;script:` or `java&#9;script:` are caught as what they are). Headings
// become Markdown headings (so chunks follow them), list items "- " lines, table cells "; "
// separated; what is not content (script, style, head, nav, svg, template, comments) is dropped.
// The tree is walked with a stack of its own: a page nested 100,000 deep costs no call stack. Pure.
import { parse } from 'parse5'
import { type HtmlNode, runsScript } from './html-script.ts'

/** Elements whose whole content is skipped. */
const SKIPPED = new Set(['script', 'style', 'head', 'nav', 'noscript', 'svg', 'math', 'template', 'iframe', 'object', 'select', 'button'])
/** Elements that end a line of text where they open or close. */
const BLOCKS = new Set([
  'address', 'article', 'aside', 'blockquote', 'body', 'dd', 'details', 'div', 'dl', 'dt', 'fieldset', 'figcaption', 'figure', 'footer', 'form', 'header', 'hr', 'html',
  'main', 'ol', 'p', 'pre', 'section', 'summary', 'table', 'tbody', 'thead', 'tfoot', 'tr', 'ul', 'caption',
])

export interface HtmlText {
  /** The <title>, or the first heading; '' when neither. */
  title: string
  /** Markdown-like text: '#' headings, '- ' list items, paragraphs between blank lines. */
  text: string
  /** The page would run script in a browser (html-script.ts says how that is told). */
  runsScript: boolean
}

/** What is written when an element opens and when it closes. */
function marks(name: string): [string, string] | undefined {
  if (/^h[1-6]$/.test(name)) return [`\n\n${'#'.repeat(Number(name[1]))} `, '\n\n']
  if (name === 'li') return ['\n- ', '']
  if (name === 'br') return ['\n', '']
  if (name === 'td' || name === 'th') return ['', '; ']
  if (name === 'tr') return ['\n', '']
  if (BLOCKS.has(name)) return ['\n\n', '\n\n']
  return undefined
}

const textOf = (node: HtmlNode | undefined) => (node?.childNodes ?? []).map((c) => c.value ?? '').join('')

export function htmlToText(html: string): HtmlText {
  const doc = parse(html) as unknown as HtmlNode
  const out: string[] = []
  let title = ''
  // children pushed in reverse; a string on the stack is text to write when it is reached
  const stack: (HtmlNode | string)[] = [doc]
  while (stack.length) {
    const item = stack.pop()!
    if (typeof item === 'string') {
      out.push(item)
      continue
    }
    if (item.nodeName === '#text') {
      out.push((item.value ?? '').replace(/\s+/g, ' '))
      continue
    }
    const name = item.tagName
    if (name === 'head') title ||= textOf(item.childNodes?.find((c) => c.tagName === 'title'))
    if (name === 'title') title ||= textOf(item)
    if (name === 'title' || (name && SKIPPED.has(name))) continue
    const around = name ? marks(name) : undefined
    if (around) stack.push(around[1])
    const children = item.childNodes ?? []
    for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]!)
    if (around) stack.push(around[0])
  }
  const text = out
    .join('')
    .split('\n')
    .map((l) => l.replace(/[ \t\u00a0]+/g, ' ').replace(/(; )+$/, '').trim())
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim()
  const heading = /^#{1,6} (.+)$/m.exec(text)
  return { title: title.replace(/\s+/g, ' ').trim() || heading?.[1]?.trim() || '', text, runsScript: runsScript(doc) }
}
