// DATA_DIR holds the database, the secret key, the admin key and call recordings: only the
// appliance's own user may read them, whatever the umask.
import { chmodSync, closeSync, lstatSync, mkdirSync, openSync, readdirSync } from 'node:fs'
import { join } from 'node:path'

export const DIR_MODE = 0o700
export const FILE_MODE = 0o600

/** The database file; SQLite gives its -wal and -shm files the mode of this file. */
export const DATABASE_FILE = 'appliance.db'
const LOCK_FILE = 'appliance.lock'

/**
 * Creates DATA_DIR (0700) and tightens what an earlier version or a loose umask left readable:
 * every folder under it 0700, every file 0600 (database with -wal/-shm, lock, secret.key,
 * admin-api-key, recordings). Creates the database and lock files 0600 before SQLite opens them.
 */
export function secureDataDir(dataDir: string, opts: { sqlite: boolean } = { sqlite: true }): void {
  mkdirSync(dataDir, { recursive: true, mode: DIR_MODE })
  tighten(dataDir, 2)
  if (!opts.sqlite) return
  for (const file of [DATABASE_FILE, LOCK_FILE]) closeSync(openSync(join(dataDir, file), 'a', FILE_MODE))
}

function tighten(dir: string, depth: number): void {
  restrict(dir, DIR_MODE)
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name)
    if (entry.isDirectory() && depth > 0) tighten(path, depth - 1)
    else if (entry.isFile()) restrict(path, FILE_MODE)
  }
}

function restrict(path: string, mode: number): void {
  // lstat: a symlink is left alone rather than followed to somewhere outside DATA_DIR
  const st = lstatSync(path)
  if (!st.isSymbolicLink() && (st.mode & 0o777) !== mode) chmodSync(path, mode)
}
