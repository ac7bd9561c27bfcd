// A document as sections of paragraphs, whatever its format: Markdown and plain text by their
// headings and blank lines, HTML through html.ts, an FAQ CSV as one entry per row. Pure.
import { parseCsv } from '../../../platform/csv/index.ts'
import { htmlToText } from './html.ts'

export type DocumentFormat = 'text' | 'markdown' | 'html' | 'faq_csv'

export interface Section {
  /** The heading path, "Opening hours > Saturday"; '' before the first heading. */
  heading: string
  paragraphs: string[]
}

export interface FaqEntry {
  question: string
  answer: string
}

export interface Outline {
  /** The first top heading, the HTML <title>, or '' (the document's name stands in). */
  title: string
  sections: Section[]
  /** FAQ CSV only. */
  faq: FaqEntry[]
  /** HTML only: the page runs script (such uploads are refused). */
  runsScript: boolean
}

/** The format a file name implies, or undefined when its extension says nothing we read. */
export function formatOf(name: string): DocumentFormat | undefined {
  const ext = /\.([a-z0-9]+)$/i.exec(name)?.[1]?.toLowerCase()
  if (ext === 'md' || ext === 'markdown') return 'markdown'
  if (ext === 'html' || ext === 'htm') return 'html'
  if (ext === 'csv') return 'faq_csv'
  if (ext === 'txt' || ext === 'text') return 'text'
  return undefined
}

/**
 * `[words](url)` and `![words](url)` as their words, in one pass: the next ']' and ')' are found
 * once and reused, so a line of a million '[' costs as little as one link (a regex would rescan).
 */
export function linkWords(line: string): string {
  let out = ''
  let from = 0
  let close = -1
  let paren = -1
  for (let i = line.indexOf('['); i >= 0; i = line.indexOf('[', i + 1)) {
    if (close < i) close = line.indexOf(']', i)
    if (close < 0) break
    if (line[close + 1] !== '(' || line.lastIndexOf('[', close) !== i) continue
    if (paren <= close) paren = line.indexOf(')', close)
    if (paren < 0) break
    const start = i > 0 && line[i - 1] === '!' ? i - 1 : i
    out += line.slice(from, start) + line.slice(i + 1, close)
    from = paren + 1
    i = paren
  }
  return out + line.slice(from)
}

/** Markdown a caller's ear has no use for: links keep their words, images and emphasis marks go. */
export function plainMarkdown(line: string): string {
  return linkWords(line)
    .replace(/(\*\*|__|~~|`)/g, '')
    .replace(/(^|[\s(])[*_]([^*_\n]+)[*_](?=[\s).,;:!?]|$)/g, '$1$2')
}

const HEADING = /^(#{1,6})\s+(.+?)\s*#*\s*$/

function markdownOutline(text: string): Outline {
  const sections: Section[] = []
  const path: string[] = []
  let current: Section = { heading: '', paragraphs: [] }
  let para: string[] = []
  let title = ''
  let fenced = false
  const flush = () => {
    if (para.length) current.paragraphs.push(para.join('\n'))
    para = []
  }
  const lines = text.replace(/\r\n?/g, '\n').split('\n')
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!
    if (/^\s*(```|~~~)/.test(line)) {
      fenced = !fenced
      continue
    }
    const next = lines[i + 1]
    const atx = fenced ? null : HEADING.exec(line)
    const setext = !fenced && line.trim() && next !== undefined && /^\s*(=+|-+)\s*$/.test(next) && !para.length ? (next.trim()[0] === '=' ? 1 : 2) : 0
    if (atx || setext) {
      flush()
      if (current.paragraphs.length || current.heading) sections.push(current)
      const level = atx ? atx[1]!.length : setext
      const words = plainMarkdown(atx ? atx[2]! : line.trim())
      // the first top heading is the document's title, kept per passage as such, not in every section's path
      const isTitle = level === 1 && !title
      if (isTitle) title = words
      path.length = Math.min(path.length, level - 1)
      path[level - 1] = isTitle ? '' : words
      current = { heading: path.filter(Boolean).join(' > '), paragraphs: [] }
      if (setext) i++
      continue
    }
    if (!line.trim()) {
      flush()
      continue
    }
    if (/^\s*\|?\s*:?-{3,}/.test(line) && line.includes('-') && /^[\s|:-]+$/.test(line)) continue // a table's rule
    const cells = line.includes('|') && /^\s*\|/.test(line) ? line.split('|').map((c) => c.trim()).filter(Boolean).join('; ') : line.trim()
    para.push(plainMarkdown(cells))
  }
  flush()
  if (current.paragraphs.length || current.heading) sections.push(current)
  return { title, sections, faq: [], runsScript: false }
}

/** FAQ rows (question, answer); a header row naming them is skipped, other columns ignored. */
function faqOutline(text: string): Outline {
  const rows = parseCsv(text, Infinity, undefined, 'content')
  const head = rows[0]?.map((c) => c.trim().toLowerCase()) ?? []
  const hasHeader = head.includes('question') && head.includes('answer')
  const q = hasHeader ? head.indexOf('question') : 0
  const a = hasHeader ? head.indexOf('answer') : 1
  const faq: FaqEntry[] = []
  for (const row of rows.slice(hasHeader ? 1 : 0)) {
    const question = (row[q] ?? '').trim()
    const answer = (row[a] ?? '').trim()
    if (question && answer) faq.push({ question, answer })
  }
  return { title: '', sections: [], faq, runsScript: false }
}

export function outline(format: DocumentFormat, content: string): Outline {
  if (format === 'faq_csv') return faqOutline(content)
  if (format === 'html') {
    const page = htmlToText(content)
    const md = markdownOutline(page.text)
    // the page's top heading names it better than its <title>, which often carries the site's name
    return { ...md, title: md.title || page.title, runsScript: page.runsScript }
  }
  return markdownOutline(content)
}
