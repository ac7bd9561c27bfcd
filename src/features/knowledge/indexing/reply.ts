// What the indexing worker (worker.ts) answers, message by message.
import type { AppError } from '../../../platform/errors.ts'
import type { PreparedChunk } from './prepare.ts'

/** Passages per message. */
export const BATCH = 1000

export type IndexingReply =
  | { ready: true }
  | { chunks: PreparedChunk[] }
  | { done: true; title: string; count: number }
  | { error: { status: number; code: AppError['code']; message: string; details?: Record<string, unknown> } }
