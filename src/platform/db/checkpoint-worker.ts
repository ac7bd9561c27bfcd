// The thread that checkpoints an SQLite file's write-ahead log (checkpoint.ts): on its own
// connection, a PASSIVE checkpoint (it waits for no reader or writer) every interval. SQLite's
// automatic checkpoint runs on the committing connection, on the event loop that HTTP and SIP
// share: after a transaction of 100,000 rows it copies tens of megabytes there (300 ms and more).
import { Database } from 'bun:sqlite'

declare const self: Worker
self.onmessage = (ev: MessageEvent<{ file: string; intervalMs: number }>) => {
  const db = new Database(ev.data.file, { strict: true })
  db.exec('PRAGMA busy_timeout = 0')
  setInterval(() => {
    try {
      db.exec('PRAGMA wal_checkpoint(PASSIVE)')
    } catch {
      // busy or the file closed under it: the next interval tries again
    }
  }, ev.data.intervalMs)
}
self.postMessage({ ready: true })
