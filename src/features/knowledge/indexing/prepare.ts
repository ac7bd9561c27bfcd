// A document's text made into the passages it is searched by, with their sound keys: the parse,
// the chunking and the hashing, all the CPU an upload costs before its rows are written. Runs in
// the indexing worker (worker.ts) for any document but a small one. Pure.
import { AppError, invalidField, validation } from '../../../platform/errors.ts'
import { type Chunk, chunkOutline, type DocumentFormat, outline, soundsOf } from '../text/index.ts'

export interface PrepareInput {
  format: DocumentFormat
  text: string
  /** The title given with the upload, or the stored one (re-indexing). */
  title?: string
  name: string
  /** Stemmed as English: its passages get sound keys. */
  english: boolean
  maxPassages: number
  /** The field an error names: content or contentBase64 (upload), content (re-index). */
  path: string
}

export interface PreparedChunk extends Chunk {
  /** The sound keys of its words (English), '' otherwise. */
  sounds: string
}

export interface PreparedDocument {
  title: string
  chunks: PreparedChunk[]
}

export const tooManyPassages = (n: number, max: number, path: string) =>
  new AppError(422, 'validation_failed', `the document makes ${n} passages; at most ${max} are accepted (KNOWLEDGE_MAX_DOCUMENT_PASSAGES): split it into several documents`, {
    fields: [{ path, message: `makes ${n} passages, more than KNOWLEDGE_MAX_DOCUMENT_PASSAGES (${max})` }],
    limitPassages: max,
  })

export function prepareDocument(input: PrepareInput): PreparedDocument {
  const doc = outline(input.format, input.text)
  if (doc.runsScript) {
    throw invalidField(input.path, 'is an HTML page that runs script (<script>, an on... handler or a javascript: link); save the page\'s text, or remove its scripts, and upload that')
  }
  // counted before passages are made: a document of half a million FAQ rows is refused at once
  if (doc.faq.length > input.maxPassages) throw tooManyPassages(doc.faq.length, input.maxPassages, input.path)
  const title = input.title?.trim() || doc.title || input.name.trim()
  const chunks = chunkOutline({ ...doc, title }, title)
  if (chunks.length > input.maxPassages) throw tooManyPassages(chunks.length, input.maxPassages, input.path)
  if (!chunks.length) {
    throw validation([{ path: 'content', message: input.format === 'faq_csv' ? 'holds no rows with a question and an answer (a header row question,answer, then one row per question)' : 'holds no text to search' }])
  }
  return { title, chunks: chunks.map((c) => ({ ...c, sounds: input.english ? soundsOf(`${c.section} ${c.body}`) : '' })) }
}
