// Preparing knowledge documents off the event loop: a small document is prepared where it is
// (milliseconds), a larger one in a worker thread of its own, a few at a time appliance-wide.
import { workerScript } from '../../../platform/embedded/index.ts'
import { AppError } from '../../../platform/errors.ts'
import { type PrepareInput, type PreparedChunk, type PreparedDocument, prepareDocument } from './prepare.ts'
import type { IndexingReply } from './reply.ts'

export { type PreparedChunk, type PreparedDocument, tooManyPassages } from './prepare.ts'

/** Below this much text a document is prepared on the event loop, which spares it a worker's start (tens of ms). */
export const INLINE_MAX_CHARS = 32 * 1024

/** Documents prepared at once, appliance-wide; more get 429 (each holds its text and a worker thread). */
export const MAX_PREPARING = 2

let preparing = 0

/** The document's passages, prepared in a worker unless it is small. */
export async function prepareOffLoop(input: PrepareInput): Promise<PreparedDocument> {
  if (input.text.length <= INLINE_MAX_CHARS) return prepareDocument(input)
  if (preparing >= MAX_PREPARING) {
    throw new AppError(429, 'rate_limited', `${MAX_PREPARING} knowledge documents are being indexed; retry in 1 s`, { retryAfterSec: 1 }, { 'retry-after': '1' })
  }
  preparing++
  try {
    return await inWorker(input)
  } finally {
    preparing--
  }
}

function inWorker(input: PrepareInput): Promise<PreparedDocument> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(workerScript('features/knowledge/indexing/worker.ts', new URL('./worker.ts', import.meta.url)))
    const chunks: PreparedChunk[] = []
    let settled = false
    const settle = (fn: () => void) => {
      if (settled) return
      settled = true
      worker.terminate()
      fn()
    }
    worker.onmessage = (ev: MessageEvent<IndexingReply>) => {
      const reply = ev.data
      if ('ready' in reply) worker.postMessage(input)
      else if ('chunks' in reply) chunks.push(...reply.chunks)
      else if ('done' in reply) settle(() => resolve({ title: reply.title, chunks }))
      else settle(() => reject(new AppError(reply.error.status, reply.error.code, reply.error.message, reply.error.details)))
    }
    worker.onerror = (ev) => settle(() => reject(new Error(`knowledge indexing worker failed: ${ev.message}`)))
    // a worker that ends without an answer (a module of its graph failed to load) must not leave the request hanging
    worker.addEventListener('close', () => settle(() => reject(new Error('knowledge indexing worker ended without an answer'))))
  })
}
