// The worker thread that runs a campaign upload's task (task.ts), so that a file of 100,000
// contacts never holds the event loop that HTTP and SIP share. One task per worker.
import { AppError } from '../../../platform/errors.ts'
import { runTask, type UploadReply, type UploadTask } from './task.ts'

declare const self: Worker
self.onmessage = (ev: MessageEvent<UploadTask>) => {
  let reply: UploadReply
  try {
    reply = { ok: true, value: runTask(ev.data) }
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
