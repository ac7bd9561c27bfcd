// The worker thread that parses and validates a campaign's upload (prepare.ts), so that a job of
// 100,000 contacts never holds the event loop that HTTP and SIP share. One upload per worker.
import { AppError } from '../../errors.ts'
import { prepareUpload, type PreparedUpload, type UploadInput } from './prepare.ts'

export type UploadReply =
  | { ready: true }
  | { ok: true; value: PreparedUpload }
  | { ok: false; error: { status: number; code: AppError['code']; message: string; details?: Record<string, unknown> } }

declare const self: Worker
self.onmessage = (ev: MessageEvent<UploadInput>) => {
  let reply: UploadReply
  try {
    reply = { ok: true, value: prepareUpload(ev.data) }
  } catch (err) {
    // only our own errors carry a message meant for the client
    reply = err instanceof AppError
      ? { ok: false, error: { status: err.status, code: err.code, message: err.message, details: err.details } }
      : { ok: false, error: { status: 400, code: 'bad_request', message: 'the upload could not be read' } }
  }
  self.postMessage(reply)
}
// a message posted before this module has loaded its imports is lost: the parent waits for this
self.postMessage({ ready: true } satisfies UploadReply)
