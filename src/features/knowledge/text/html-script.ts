// Whether an HTML page would run script when a browser opens it, told from parse5's tree, so what
// is judged is what the browser would see: character references decoded (`jav&#x61;script:`,
// `javascript&colon;`), comments ended where the browser ends them (`<!--><script>`), and tabs and
// newlines inside a URL dropped as the URL parser drops them (`java&#9;script:`). Pure.
import { parse } from 'parse5'

/** The part of parse5's tree the readers look at. */
export interface HtmlNode {
  nodeName: string
  tagName?: string
  value?: string
  attrs?: { name: string; value: string }[]
  childNodes?: HtmlNode[]
  /** A <template>'s content lives outside its children. */
  content?: HtmlNode
}

/** A URL scheme that runs script where the URL is followed or loaded. */
const SCRIPT_URL = /^(javascript|vbscript|livescript):|^data:(text\/html|application\/xhtml|image\/svg|text\/xml|application\/xml)/
/** srcdoc pages nested in srcdoc pages beyond this are refused rather than read. */
const MAX_SRCDOC_DEPTH = 3

/** A URL as the URL parser reads it: C0 controls and spaces at the ends cut, tabs and newlines anywhere dropped. */
// eslint-disable-next-line no-control-regex
const asUrl = (value: string) => value.replace(/^[\u0000-\u0020]+|[\u0000-\u0020]+$/g, '').replace(/[\t\n\r]/g, '').toLowerCase()

/** Whether an attribute makes its element run script. */
function scriptAttribute(tag: string, name: string, value: string, depth: number): boolean {
  const n = name.toLowerCase()
  if (n.startsWith('on')) return true
  // an iframe's srcdoc is a page of its own
  if (n === 'srcdoc') return depth >= MAX_SRCDOC_DEPTH || runsScript(parse(value) as unknown as HtmlNode, depth + 1)
  if (tag === 'meta' && n === 'content' && /url\s*=/i.test(value)) return SCRIPT_URL.test(asUrl(value.replace(/^.*?url\s*=\s*['"]?/i, '')))
  // every attribute a URL can sit in (href, src, action, formaction, data, xlink:href, poster,
  // background, and an SVG animation's values/to/from), and srcset's candidates
  for (const part of n === 'srcset' ? value.split(',') : [value]) if (SCRIPT_URL.test(asUrl(part))) return true
  return false
}

export function runsScript(doc: HtmlNode, depth = 0): boolean {
  const stack: HtmlNode[] = [doc]
  while (stack.length) {
    const node = stack.pop()!
    const tag = node.tagName
    if (tag === 'script') return true
    // a refresh or a base whose target runs script is caught by its attributes below
    if (tag) for (const a of node.attrs ?? []) if (scriptAttribute(tag, a.name, a.value, depth)) return true
    if (node.content) stack.push(node.content)
    for (const c of node.childNodes ?? []) stack.push(c)
  }
  return false
}
