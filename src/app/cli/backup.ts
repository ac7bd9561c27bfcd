// Online backup and offline restore of DATA_DIR's state: one SQLite file holding a consistent
// snapshot of the database (VACUUM INTO, which reads one transaction while the server keeps
// writing) and the secret key that decrypts the stored trunk and carrier credentials.
import { Database as Sqlite } from 'bun:sqlite'
import { chmodSync, copyFileSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { lockDataDir } from '../../platform/db/index.ts'
import { SECRET_KEY_FILE } from '../../platform/secrets/index.ts'

export const DB_FILE = 'appliance.db'
const META = 'appliance_backup'

export class BackupError extends Error {}

export interface BackupResult {
  file: string
  bytes: number
  calls: number
}

/** Writes a backup of DATA_DIR to `target` (which must not exist); safe while the appliance serves. */
export function backup(dataDir: string, target: string, now = new Date()): BackupResult {
  const source = join(dataDir, DB_FILE)
  if (!existsSync(source)) throw new BackupError(`no database at ${source}`)
  if (existsSync(target)) throw new BackupError(`${target} exists already; choose a new file`)
  const folder = dirname(resolve(target))
  if (!statSync(folder, { throwIfNoEntry: false })?.isDirectory()) throw new BackupError(`cannot write ${target}: there is no folder ${folder}`)
  const keyFile = join(dataDir, SECRET_KEY_FILE)
  const secretKey = existsSync(keyFile) ? readFileSync(keyFile, 'utf8').trim() : ''
  const db = new Sqlite(source, { readonly: true })
  try {
    db.exec('PRAGMA busy_timeout = 5000')
    db.query('VACUUM INTO ?').run(target)
  } catch (err) {
    // a folder this user may not write to, a full disk: SQLite names the cause
    rmSync(target, { force: true })
    throw new BackupError(`the backup to ${target} failed: ${(err as Error).message}`)
  } finally {
    db.close()
  }
  const out = new Sqlite(target)
  try {
    chmodSync(target, 0o600)
    out.exec(`CREATE TABLE ${META} (name TEXT PRIMARY KEY, value TEXT NOT NULL)`)
    const put = out.query(`INSERT INTO ${META} (name, value) VALUES (?, ?)`)
    put.run('created_at', now.toISOString())
    put.run('secret_key', secretKey)
    const calls = (out.query('SELECT count(*) AS n FROM calls').get() as { n: number }).n
    return { file: target, bytes: Bun.file(target).size, calls }
  } finally {
    out.close()
  }
}

/**
 * Replaces DATA_DIR's database and secret key with a backup's. Refuses while an appliance holds
 * DATA_DIR (DataDirLockedError); the files it replaces are kept beside as `*.before-restore`.
 */
export function restore(dataDir: string, source: string): { createdAt: string } {
  if (!existsSync(source)) throw new BackupError(`no backup at ${source}`)
  mkdirSync(dataDir, { recursive: true, mode: 0o700 })
  const lock = lockDataDir(dataDir)
  try {
    const staged = join(dataDir, `${DB_FILE}.restoring`)
    rmSync(staged, { force: true })
    copyFileSync(source, staged)
    chmodSync(staged, 0o600)
    const db = new Sqlite(staged)
    let meta: Map<string, string>
    try {
      const check = db.query('PRAGMA integrity_check').get() as { integrity_check: string }
      if (check.integrity_check !== 'ok') throw new BackupError(`${source} is damaged: ${check.integrity_check}`)
      const hasMeta = db.query("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(META)
      if (!hasMeta) throw new BackupError(`${source} is not a backup made by \`voice-agent backup\``)
      meta = new Map((db.query(`SELECT name, value FROM ${META}`).all() as { name: string; value: string }[]).map((r) => [r.name, r.value]))
      db.exec(`DROP TABLE ${META}`)
    } catch (err) {
      db.close()
      rmSync(staged, { force: true })
      throw err instanceof BackupError ? err : new BackupError(`${source} is not a readable SQLite backup: ${(err as Error).message}`)
    }
    db.close()
    const live = join(dataDir, DB_FILE)
    for (const suffix of ['', '-wal', '-shm']) {
      if (existsSync(live + suffix)) renameSync(live + suffix, `${live}${suffix}.before-restore`)
    }
    renameSync(staged, live)
    const secret = meta.get('secret_key') ?? ''
    if (secret) {
      const keyFile = join(dataDir, SECRET_KEY_FILE)
      if (existsSync(keyFile) && readFileSync(keyFile, 'utf8').trim() !== secret) renameSync(keyFile, `${keyFile}.before-restore`)
      writeFileSync(keyFile, `${secret}\n`, { mode: 0o600 })
    }
    return { createdAt: meta.get('created_at') ?? 'unknown' }
  } finally {
    lock.release()
  }
}
