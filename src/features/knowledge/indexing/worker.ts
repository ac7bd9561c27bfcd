// The worker thread that prepares a knowledge document (prepare.ts), so that parsing and chunking
// two megabytes never hold the event loop that HTTP and SIP share. It answers with the passages
// in batches: each message is a small structured clone for the event loop to take in.
import { AppError } from '../../../platform/errors.ts'
import { type PrepareInput, prepareDocument } from './prepare.ts'
import { BATCH, type IndexingReply } from './reply.ts'

declare const self: Worker
self.onmessage = (ev: MessageEvent<PrepareInput>) => {
  try {
    const { title, chunks } = prepareDocument(ev.data)
    for (let i = 0; i < chunks.length; i += BATCH) self.postMessage({ chunks: chunks.slice(i, i + BATCH) } satisfies IndexingReply)
    self.postMessage({ done: true, title, count: chunks.length } satisfies IndexingReply)
  } catch (err) {
    // only our own errors carry a message meant for the client
    self.postMessage((err instanceof AppError
      ? { error: { status: err.status, code: err.code, message: err.message, details: err.details } }
      : { error: { status: 400, code: 'bad_request', message: 'the document could not be read' } }) satisfies IndexingReply)
  }
}
// a message posted before this module has loaded its imports is lost: the parent waits for this
self.postMessage({ ready: true } satisfies IndexingReply)
