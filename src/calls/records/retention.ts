import { type Db, refreshPlannerStats, retryOnDeadlock } from '../../db/index.ts'
import { newId } from '../../ids.ts'
import { Poller, releaseLease, takeLease } from '../../jobs/index.ts'
import type { Logger } from '../../log.ts'
import type { RecordingStorage } from '../../recordings/index.ts'

const DAY_MS = 86_400_000
const BATCH = 500
const LEASE = 'retention-sweep'

export interface RetentionPolicy {
  /** 0 keeps recordings forever. */
  recordingDays: number
  /** 0 keeps call records forever. */
  callDays: number
}

/** One sweep: recordings, then whole records, older than their retention (by the call's end). */
export async function sweepRetention(db: Db, policy: RetentionPolicy, now: Date, storage: Pick<RecordingStorage, 'remove'>): Promise<{ recordings: number; calls: number }> {
  let recordings = 0
  let calls = 0
  if (policy.recordingDays > 0) {
    const before = new Date(now.getTime() - policy.recordingDays * DAY_MS).toISOString()
    for (;;) {
      const rows = await db
        .selectFrom('calls').select(['id', 'recording_path'])
        .where('ended_at', '<', before).where('recording_path', 'is not', null).limit(BATCH).execute()
      for (const r of rows) {
        await storage.remove(r.recording_path!)
        await db.updateTable('calls').set({ recording_path: null }).where('id', '=', r.id).execute()
      }
      recordings += rows.length
      if (rows.length < BATCH) break
    }
  }
  if (policy.callDays > 0) {
    const before = new Date(now.getTime() - policy.callDays * DAY_MS).toISOString()
    for (;;) {
      const ids = (await db.selectFrom('calls').select('id').where('ended_at', '<', before).where('status', '=', 'ended').limit(BATCH).execute()).map((r) => r.id)
      if (!ids.length) break
      await retryOnDeadlock(() => db.deleteFrom('calls').where('id', 'in', ids).execute())
      calls += ids.length
      if (ids.length < BATCH) break
    }
  }
  return { recordings, calls }
}

/**
 * Runs the sweep every `intervalMs` on whichever node holds the sweep's lease, and refreshes the
 * query planner's statistics (the call listing picks its index by them).
 */
export class RetentionSweeper {
  private readonly owner = newId('wrk')
  private readonly poller: Poller

  constructor(
    private readonly db: Db,
    policy: RetentionPolicy,
    log: Logger,
    storage: Pick<RecordingStorage, 'remove'>,
    intervalMs = 3_600_000,
  ) {
    this.poller = new Poller(
      'retention',
      intervalMs,
      async () => {
        if (!(await takeLease(db, LEASE, this.owner, new Date(), intervalMs))) return
        await refreshPlannerStats(db)
        if (!policy.recordingDays && !policy.callDays) return
        const swept = await sweepRetention(db, policy, new Date(), storage)
        if (swept.recordings || swept.calls) log.info(swept, 'retention sweep removed old recordings and call records')
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
