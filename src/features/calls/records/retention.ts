import { type Db, forEachChunk, refreshPlannerStats, retryOnDeadlock } from '../../../platform/db/index.ts'
import { newId } from '../../../platform/ids.ts'
import { Poller, releaseLease, takeLease } from '../../../platform/jobs/index.ts'
import type { Logger } from '../../../platform/log.ts'
import { orphanRecordings, type RecordingStorage } from '../../recordings/index.ts'
import * as ledger from './ledger.ts'

const DAY_MS = 86_400_000
const BATCH = 500
const LEASE = 'retention-sweep'

export interface RetentionPolicy {
  /** 0 keeps recordings forever. */
  recordingDays: number
  /** 0 keeps call records forever. */
  callDays: number
  /** This node's recordings folder, searched for recordings without a record (none: not searched). */
  recordingsDir?: string
}

type Storage = Pick<RecordingStorage, 'remove' | 'objects' | 'hasBucket'>

/**
 * How long a recording that no record points at is kept, by the time it last changed: the
 * recordings' retention, else the records' (a recording never outlives its record's retention).
 * 0 (both kept forever): kept until `voice-agent recordings gc`.
 */
export const orphanDays = (p: RetentionPolicy) => p.recordingDays || p.callDays

/**
 * One sweep: recordings, then whole records, older than their retention (by the call's end). A
 * record's recording is removed before the record, so none is left without one.
 */
export async function sweepRetention(db: Db, policy: RetentionPolicy, now: Date, storage: Pick<RecordingStorage, 'remove'>): Promise<{ recordings: number; calls: number }> {
  let recordings = 0
  let calls = 0
  // Each chunk leaves the query's matches once handled, so every chunk is the query's first BATCH rows.
  if (policy.recordingDays > 0) {
    const before = new Date(now.getTime() - policy.recordingDays * DAY_MS).toISOString()
    const recorded = () =>
      db.selectFrom('calls').select(['id', 'recording_path']).where('ended_at', '<', before).where('recording_path', 'is not', null).limit(BATCH).execute()
    await forEachChunk(recorded, BATCH, async (rows) => {
      for (const r of rows) {
        await storage.remove(r.recording_path!)
        await ledger.forgetRecording(db, r.id)
      }
      recordings += rows.length
    })
  }
  if (policy.callDays > 0) {
    const before = new Date(now.getTime() - policy.callDays * DAY_MS).toISOString()
    const expired = () => db.selectFrom('calls').select(['id', 'recording_path']).where('ended_at', '<', before).where('status', '=', 'ended').limit(BATCH).execute()
    await forEachChunk(expired, BATCH, async (rows) => {
      for (const r of rows.filter((x) => x.recording_path)) await storage.remove(r.recording_path!)
      recordings += rows.filter((x) => x.recording_path).length
      const ids = rows.map((r) => r.id)
      await retryOnDeadlock(() => ledger.deleteExpiredCalls(db, ids))
      calls += ids.length
    })
  }
  return { recordings, calls }
}

/**
 * Removes the recordings that no record points at once they last changed before `before`: files
 * in `dir`, and with `objects` those in the bucket. Each batch removed is logged with its
 * locations once it is gone, so the log holds every file this removed.
 */
export async function sweepOrphanRecordings(db: Db, storage: Storage, scan: { dir: string; objects: boolean; before: Date }, log: Logger): Promise<number> {
  let removed = 0
  for await (const batch of orphanRecordings(db, storage, { dir: scan.dir, objects: scan.objects, changedBeforeMs: scan.before.getTime() })) {
    const done: string[] = []
    try {
      for (const location of batch) {
        await storage.remove(location)
        done.push(location)
      }
    } finally {
      if (done.length) log.info({ removed: done, changedBefore: scan.before.toISOString() }, 'retention removed recordings that no call record points at')
      removed += done.length
    }
  }
  return removed
}

/**
 * Runs the sweep every `intervalMs` on whichever node holds the sweep's lease, and refreshes the
 * query planner's statistics (the call listing picks its index by them). Recordings without a
 * record are looked for on every node's own disk, and in the bucket by the lease holder.
 */
export class RetentionSweeper {
  private readonly owner = newId('wrk')
  private readonly poller: Poller

  constructor(
    private readonly db: Db,
    policy: RetentionPolicy,
    log: Logger,
    storage: Storage,
    intervalMs = 3_600_000,
  ) {
    this.poller = new Poller(
      'retention',
      intervalMs,
      async () => {
        const leader = await takeLease(db, LEASE, this.owner, new Date(), intervalMs)
        if (leader) {
          await refreshPlannerStats(db)
          if (policy.recordingDays || policy.callDays) {
            const swept = await sweepRetention(db, policy, new Date(), storage)
            if (swept.recordings || swept.calls) log.info(swept, 'retention sweep removed old recordings and call records')
          }
        }
        const days = orphanDays(policy)
        if (days > 0 && policy.recordingsDir) {
          const before = new Date(Date.now() - days * DAY_MS)
          await sweepOrphanRecordings(db, storage, { dir: policy.recordingsDir, objects: leader && storage.hasBucket, before }, log)
        }
      },
      log,
    )
  }

  start(): void {
    this.poller.start()
  }

  /** Waits for a sweep in progress, then hands the lease back so another node need not wait for it to expire. */
  async stop(): Promise<void> {
    await this.poller.stop()
    await releaseLease(this.db, LEASE, this.owner)
  }
}
