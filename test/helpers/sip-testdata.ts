import { existsSync } from 'node:fs'
import { resolve } from 'node:path'

/**
 * Folder of the shared SIP test corpora: SIP_TESTDATA_DIR, else the first of
 * ../shared/testdata/sip (CI: a clone with shared/ beside it) and ../../shared/testdata/sip
 * (a worktree one level deeper) that exists, relative to the repository root.
 */
export function sipTestdataDir(): string {
  const root = resolve(import.meta.dir, '../..')
  if (process.env.SIP_TESTDATA_DIR) return resolve(root, process.env.SIP_TESTDATA_DIR)
  for (const rel of ['../shared/testdata/sip', '../../shared/testdata/sip']) {
    const dir = resolve(root, rel)
    if (existsSync(dir)) return dir
  }
  throw new Error('SIP test data not found: set SIP_TESTDATA_DIR')
}
