// Checkpointing the WAL off the event loop: the writer's automatic checkpoint is turned off and a
// worker thread (checkpoint-worker.ts) checkpoints the file instead. Closing the writer (the last
// connection) checkpoints what is left, as SQLite does.
import type { Database as Sqlite } from 'bun:sqlite'
import { workerScript } from '../embedded/index.ts'

/** How often the worker checkpoints; the WAL holds at most about this much of writes beyond what readers pin. */
export const CHECKPOINT_INTERVAL_MS = 500

/** Starts the checkpoint thread for `file`, written by `writer`; the returned function stops it. */
export function checkpointOffLoop(writer: Sqlite, file: string): () => void {
  const worker = new Worker(workerScript('platform/db/checkpoint-worker.ts', new URL('./checkpoint-worker.ts', import.meta.url)))
  worker.onmessage = () => worker.postMessage({ file, intervalMs: CHECKPOINT_INTERVAL_MS })
  worker.unref()
  writer.exec('PRAGMA wal_autocheckpoint = 0')
  return () => worker.terminate()
}
