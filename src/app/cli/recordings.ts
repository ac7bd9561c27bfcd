// `voice-agent recordings gc [--dry-run]`: the recordings that no call record points at (left by
// DELETE /api/calls/{id} without deleteRecording=true, or by a restore), on this node's disk and,
// with S3_BUCKET set, in the bucket. Lists them on stdout, one location a line, then one line
// `# <count> ...`; removes them unless --dry-run. Safe while the appliance runs: a call's row is
// written before its recording is opened, so a recording of a call in progress always has its
// row (see recordings/orphans.ts).
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import type { Config } from '../../platform/config/index.ts'
import { openConfigured, sqliteFileOf } from '../../platform/db/index.ts'
import { orphanRecordings, recordingStorageFor } from '../../features/recordings/index.ts'

export const RECORDINGS_USAGE = 'usage: voice-agent recordings gc [--dry-run] [--older-than-days N]'

type Out = { out(line: string): void; err(line: string): void }

export class RecordingsUsageError extends Error {}

export async function recordingsCommand(args: string[], cfg: Config, io: Out): Promise<number> {
  let parsed
  try {
    parsed = parseArgs({ args, options: { 'dry-run': { type: 'boolean' }, 'older-than-days': { type: 'string' } }, allowPositionals: true, strict: true })
  } catch (err) {
    throw new RecordingsUsageError(`${(err as Error).message}; ${RECORDINGS_USAGE}`)
  }
  if (parsed.positionals.length !== 1 || parsed.positionals[0] !== 'gc') throw new RecordingsUsageError(RECORDINGS_USAGE)
  const days = parsed.values['older-than-days']
  if (days !== undefined && !/^\d{1,5}$/.test(days)) throw new RecordingsUsageError(`--older-than-days takes a whole number of days; ${RECORDINGS_USAGE}`)
  const dryRun = parsed.values['dry-run'] === true
  // an empty database would make every recording an orphan: refuse one that is not there
  const file = sqliteFileOf(cfg)
  if (file !== undefined && !existsSync(file)) {
    io.err(`no database in DATA_DIR ${cfg.DATA_DIR}: nothing to compare the recordings with`)
    return 1
  }
  const storage = recordingStorageFor(cfg)
  const handle = openConfigured(cfg, 1)
  let count = 0
  try {
    const scan = {
      dir: join(cfg.DATA_DIR, 'recordings'),
      objects: storage.hasBucket,
      changedBeforeMs: days === undefined ? undefined : Date.now() - Number(days) * 86_400_000,
    }
    for await (const batch of orphanRecordings(handle.db, storage, scan)) {
      for (const location of batch) {
        if (!dryRun) await storage.remove(location)
        io.out(location)
        count++
      }
    }
  } finally {
    await handle.close()
  }
  // the result, after the list: a `#` line is no location, whatever reads the list skips it
  io.out(dryRun ? `# ${count} recordings without a call record (dry run: nothing removed)` : `# removed ${count} recordings without a call record`)
  return 0
}
