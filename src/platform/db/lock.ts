import { Database as Sqlite } from 'bun:sqlite'
import { join } from 'node:path'

export class DataDirLockedError extends Error {}

/**
 * Holds an exclusive SQLite lock on DATA_DIR/appliance.lock for the life of the process. The
 * operating system drops the lock when the process dies, so a crash never leaves a stale lock.
 */
export function lockDataDir(dataDir: string): { release(): void } {
  const file = join(dataDir, 'appliance.lock')
  const lockDb = new Sqlite(file, { create: true })
  try {
    lockDb.exec('PRAGMA busy_timeout = 0')
    lockDb.exec('PRAGMA locking_mode = EXCLUSIVE')
    lockDb.exec('BEGIN EXCLUSIVE')
  } catch {
    lockDb.close()
    throw new DataDirLockedError(`another appliance process is already using DATA_DIR ${dataDir}`)
  }
  return {
    release() {
      try {
        lockDb.exec('ROLLBACK')
      } finally {
        lockDb.close()
      }
    },
  }
}
