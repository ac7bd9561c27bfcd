// The passages a document is searched and answered by: paragraphs of one section, short ones
// joined up to a size, long ones cut at sentence ends; an FAQ row stays whole. Each keeps its
// document's title and its section, and a hash of what it holds so that re-indexing a changed
// document rewrites only the passages that changed. Pure.
import { createHash } from 'node:crypto'
import type { Outline } from './outline.ts'

/**
 * Paragraphs of a section are joined while the passage stays under this many characters: a
 * section usually answers one question, and its answer is often not in its first paragraph. What
 * is said of a passage is chosen by sentence (speakable.ts).
 */
const JOIN_UNDER = 1500
/** A paragraph longer than this is cut at sentence ends. */
const SPLIT_OVER = 1500

export interface Chunk {
  position: number
  title: string
  /** The heading path, or the FAQ question. */
  section: string
  /** What is searched (for an FAQ row, the question and its answer). */
  body: string
  /** An FAQ row's answer: what the agent says for it. */
  answer: string | null
  hash: string
}

/** Sentences of a text: ends at . ! ? followed by a space and a capital, digit or quote, or at a line break. */
export function sentences(text: string): string[] {
  return text
    .split(/(?<=[.!?…])\s+(?=["“'(\[]?[\p{Lu}\p{N}])|\n+/u)
    .map((s) => s.trim())
    .filter(Boolean)
}

function cutLong(paragraph: string): string[] {
  if (paragraph.length <= SPLIT_OVER) return [paragraph]
  const out: string[] = []
  let cur = ''
  for (const s of sentences(paragraph)) {
    if (cur && cur.length + 1 + s.length > SPLIT_OVER / 2) {
      out.push(cur)
      cur = ''
    }
    // a "sentence" with no end in sight (a list run together) is cut at a word
    for (let rest = s; rest; ) {
      const piece = rest.length <= SPLIT_OVER ? rest : rest.slice(0, rest.lastIndexOf(' ', SPLIT_OVER) > 0 ? rest.lastIndexOf(' ', SPLIT_OVER) : SPLIT_OVER)
      cur = cur ? `${cur} ${piece}` : piece
      rest = rest.slice(piece.length).trim()
      if (rest) {
        out.push(cur)
        cur = ''
      }
    }
  }
  if (cur) out.push(cur)
  return out
}

const hashOf = (...parts: string[]) => createHash('sha256').update(parts.join('\u0000')).digest('base64url').slice(0, 22)

export function chunkOutline(doc: Outline, fallbackTitle: string): Chunk[] {
  const title = doc.title || fallbackTitle
  const chunks: Chunk[] = []
  const push = (section: string, body: string, answer: string | null) =>
    chunks.push({ position: chunks.length, title, section, body, answer, hash: hashOf(title, section, body, answer ?? '') })
  for (const { question, answer } of doc.faq) push(question, `${question}\n${answer}`, answer)
  for (const section of doc.sections) {
    let cur = ''
    for (const piece of section.paragraphs.flatMap(cutLong)) {
      if (cur && cur.length + 2 + piece.length > JOIN_UNDER) {
        push(section.heading, cur, null)
        cur = ''
      }
      cur = cur ? `${cur}\n\n${piece}` : piece
    }
    if (cur) push(section.heading, cur, null)
  }
  return chunks
}
