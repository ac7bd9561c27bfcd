// DATA_DIR is the appliance's alone: the folder 0700, the database (with -wal/-shm), lock, secret
// key, admin key and recordings 0600, on a fresh install and after an upgrade from looser modes.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { chmodSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { startTestAppliance } from '../helpers/appliance.ts'

const root = mkdtempSync(join(tmpdir(), 'data-dir-modes-'))
const dir = join(root, 'data')
const mode = (path: string) => statSync(path).mode & 0o777
const FILES = ['appliance.db', 'appliance.db-wal', 'appliance.db-shm', 'appliance.lock', 'secret.key', 'admin-api-key']
let umask: number

beforeAll(() => {
  // the usual umask, under which files would be created readable by every local user
  umask = process.umask(0o022)
})
afterAll(() => {
  process.umask(umask)
  rmSync(root, { recursive: true, force: true })
})

test('a fresh DATA_DIR is created 0700 with the database, its -wal/-shm, the keys and the recordings folder private', async () => {
  const t = await startTestAppliance({}, dir)
  try {
    expect(mode(dir)).toBe(0o700)
    for (const f of FILES) expect([f, mode(join(dir, f))]).toEqual([f, 0o600])
    expect(mode(join(dir, 'recordings'))).toBe(0o700)
  } finally {
    await t.stop({ keepData: true })
  }
})

test('an existing DATA_DIR with loose modes is tightened at start, recordings included', async () => {
  chmodSync(dir, 0o755)
  chmodSync(join(dir, 'recordings'), 0o755)
  writeFileSync(join(dir, 'recordings', 'call_old.wav'), 'RIFF', { mode: 0o644 })
  for (const f of readdirSync(dir)) if (f !== 'recordings') chmodSync(join(dir, f), 0o644)
  expect(mode(join(dir, 'secret.key'))).toBe(0o644)

  const t = await startTestAppliance({}, dir)
  try {
    expect(mode(dir)).toBe(0o700)
    for (const f of FILES) expect([f, mode(join(dir, f))]).toEqual([f, 0o600])
    expect(mode(join(dir, 'recordings'))).toBe(0o700)
    expect(mode(join(dir, 'recordings', 'call_old.wav'))).toBe(0o600)
  } finally {
    await t.stop({ keepData: true })
  }
})
