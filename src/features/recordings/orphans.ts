// Recordings that no call record points at any more: left by DELETE /api/calls/{id} (which keeps
// the file unless deleteRecording=true, as the API contract says), by a record removed while its
// upload was under way, or by a database restored from an older backup. Nothing else would ever
// remove them: the API and the retention sweep reach a recording through its call's row.
//
// A recording is named after its call, by construction: DATA_DIR/recordings/<callId>.wav on a
// node's disk and recordings/<callId>.wav in the bucket. The row of a call is written before its
// recorder opens the file, so a file whose call id has a row (ringing, in progress or ended, on
// any node) is never an orphan, and a file without one never gains one (call ids are new).

import { readdir, stat } from 'node:fs/promises'
import { join } from 'node:path'
import type { Db } from '../../platform/db/index.ts'
import { parseObjectLocation, type RecordingStorage } from './storage.ts'

const BATCH = 500
/** `<callId>.wav` with a call id exactly as newId('call') makes it; other files in the folder are never touched. */
const NAME = /^(call_[0-9a-hjkmnp-tv-z]{26})\.wav$/

export interface OrphanScan {
  /** This node's recordings folder (DATA_DIR/recordings). */
  dir: string
  /** Also list the bucket's recordings/ objects (one node of a cluster does it). */
  objects: boolean
  /** Only files last changed before this time (epoch ms); undefined: any age. */
  changedBeforeMs?: number
}

interface Found {
  location: string
  callId: string
  modifiedMs: number
}

/** The call id a recording's location names, or null when it is not a recording's name. */
export function callIdOf(location: string): string | null {
  const obj = parseObjectLocation(location)
  const name = obj ? (obj.key.startsWith('recordings/') ? obj.key.slice('recordings/'.length) : '') : location.slice(location.lastIndexOf('/') + 1)
  return NAME.exec(name)?.[1] ?? null
}

async function* localFiles(dir: string): AsyncGenerator<Found> {
  let names: string[]
  try {
    names = await readdir(dir)
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return
    throw err
  }
  for (const name of names) {
    const callId = callIdOf(name)
    if (!callId) continue
    const location = join(dir, name)
    try {
      const st = await stat(location)
      if (st.isFile()) yield { location, callId, modifiedMs: st.mtimeMs }
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err // removed meanwhile
    }
  }
}

async function* storedRecordings(storage: Pick<RecordingStorage, 'objects'>, scan: OrphanScan): AsyncGenerator<Found> {
  yield* localFiles(scan.dir)
  if (!scan.objects) return
  for await (const o of storage.objects()) {
    const callId = callIdOf(o.location)
    if (callId) yield { ...o, callId }
  }
}

/** Of these recordings, those whose call has no row. */
async function withoutRows(db: Db, batch: Found[]): Promise<string[]> {
  if (!batch.length) return []
  const ids = [...new Set(batch.map((f) => f.callId))]
  const rows = await db.selectFrom('calls').select('id').where('id', 'in', ids).execute()
  const live = new Set(rows.map((r) => r.id))
  return batch.filter((f) => !live.has(f.callId)).map((f) => f.location)
}

/**
 * The locations of recordings whose call has no row, in batches: files in the folder, then
 * objects in the bucket. A file changed at or after `changedBeforeMs`, or whose time is
 * unknown, is left out.
 */
export async function* orphanRecordings(db: Db, storage: Pick<RecordingStorage, 'objects'>, scan: OrphanScan): AsyncGenerator<string[]> {
  let batch: Found[] = []
  for await (const f of storedRecordings(storage, scan)) {
    if (scan.changedBeforeMs !== undefined && !(f.modifiedMs < scan.changedBeforeMs)) continue
    batch.push(f)
    if (batch.length < BATCH) continue
    const orphans = await withoutRows(db, batch)
    batch = []
    if (orphans.length) yield orphans
  }
  const orphans = await withoutRows(db, batch)
  if (orphans.length) yield orphans
}
