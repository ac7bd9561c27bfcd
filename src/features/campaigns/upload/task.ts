// What the upload worker (worker.ts) is asked to do and answers: prepare a job's upload
// (prepare.ts) or preview a contacts CSV (preview.ts). Small bodies run the same task on the
// event loop.
import type { AppError } from '../../../platform/errors.ts'
import { prepareUpload, type PreparedUpload, type UploadInput } from './prepare.ts'
import { type ContactsPreview, type PreviewInput, previewContacts } from './preview.ts'

export type UploadTask = { upload: UploadInput } | { preview: PreviewInput }

export type TaskResult<T extends UploadTask> = T extends { upload: UploadInput } ? PreparedUpload : ContactsPreview

export type UploadReply =
  | { ready: true }
  | { ok: true; value: PreparedUpload | ContactsPreview }
  | { ok: false; error: { status: number; code: AppError['code']; message: string; details?: Record<string, unknown> } }

export function runTask<T extends UploadTask>(task: T): TaskResult<T> {
  return ('upload' in task ? prepareUpload(task.upload) : previewContacts(task.preview)) as TaskResult<T>
}

/** The bytes a task hands to the worker (moved, not copied). */
export const taskBytes = (task: UploadTask): Uint8Array => ('upload' in task ? task.upload.bytes : task.preview.bytes)
