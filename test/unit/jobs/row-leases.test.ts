// The one leased-row claim and the one renewal rhythm that the analysis worker, the webhook
// outbox, the campaign dispatcher and node presence share, on a real SQLite file.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, relative } from 'node:path'
import { sql } from 'kysely'
import { migrateToLatest, openDatabase, type DbHandle } from '../../../src/platform/db/index.ts'
import { claimRows, LeaseKeeper, NO_LEASE, renewEvery } from '../../../src/platform/jobs/index.ts'
import type { AnalysisRow } from '../../../src/features/calls/records/records.table.ts'
import { untilAsync } from '../../helpers/until.ts'

let h: DbHandle
const dir = mkdtempSync(join(tmpdir(), 'row-leases-'))
const t0 = new Date('2026-11-23T18:00:00.000Z')
const at = (ms: number) => new Date(t0.getTime() + ms)

beforeAll(async () => {
  h = openDatabase(join(dir, 'a.db'))
  await migrateToLatest(h.db)
  h.sqlite.exec("INSERT INTO workspaces (id, name, created_at, updated_at) VALUES ('ws', 'w', 'x', 'x')")
  for (const id of ['call_1', 'call_2', 'call_3']) {
    h.sqlite.exec(`INSERT INTO calls (id, workspace_id, type, from_number, to_number, status, created_at) VALUES ('${id}', 'ws', 'inbound', '+1', '+2', 'ended', 'x')`)
    await h.db.insertInto('call_analyses').values({
      call_id: id, workspace_id: 'ws', status: 'pending', run_after: t0.toISOString(), created_at: t0.toISOString(), attempts: 0, summary: '',
      is_voicemail: 0, model: '', input_tokens: 0, output_tokens: 0, cost: 0, sentiment: null, error: null, ...NO_LEASE, completed_at: null,
    }).execute()
  }
})
afterAll(async () => {
  await h.close()
  rmSync(dir, { recursive: true, force: true })
})

const claim = (owner: string, now: Date, limit: number) =>
  claimRows<AnalysisRow>(h.db, {
    table: 'call_analyses', key: 'call_id', orderBy: 'run_after', owner, now, leaseMs: 60_000, limit, countAttempt: true,
    due: sql`status = 'pending' AND run_after <= ${now.toISOString()}`,
  })

/** Resolves after `n` ticks of a 50 ms interval of its own (the keeper's period in these tests). */
async function intervalsPass(n: number): Promise<void> {
  let ticks = 0
  const timer = setInterval(() => ticks++, 50)
  try {
    await untilAsync(async () => ticks >= n, 10_000, `${n} intervals`)
  } finally {
    clearInterval(timer)
  }
}

describe('leased rows', () => {
  test('a claim takes up to its limit of free due rows, writes owner and expiry, counts an attempt; held rows are not claimed again until the lease runs out', async () => {
    const first = await claim('a', at(0), 2)
    expect(first).toHaveLength(2)
    for (const r of first) expect(r).toMatchObject({ lease_owner: 'a', lease_expires_at: at(60_000).toISOString(), attempts: 1 })
    const second = await claim('b', at(1000), 5)
    expect(second.map((r) => r.call_id)).toEqual(['call_1', 'call_2', 'call_3'].filter((id) => !first.some((r) => r.call_id === id)))
    expect(await claim('c', at(59_999), 5)).toEqual([])
    const expired = await claim('c', at(60_000), 5)
    expect(expired.map((r) => r.call_id).sort()).toEqual(first.map((r) => r.call_id).sort())
    expect(expired.every((r) => r.attempts === 2 && r.lease_owner === 'c')).toBe(true)
    expect(await claim('d', at(60_000), 0)).toEqual([])
  })

  test('a lease is renewed every third of its time, never faster than 50 ms', () => {
    expect(renewEvery(60_000)).toBe(20_000)
    expect(renewEvery(1000)).toBe(333)
    expect(renewEvery(90)).toBe(50)
  })

  test('the keeper renews on its rhythm, never two renewals at once, and not after stop', async () => {
    let running = 0
    let most = 0
    let calls = 0
    let release!: () => void
    const gate = new Promise<void>((r) => (release = r))
    const keeper = new LeaseKeeper(150, async () => {
      calls++
      running++
      most = Math.max(most, running)
      if (calls === 1) await gate // the first renewal is slow: later turns must skip, not pile up
      running--
    })
    expect(keeper.intervalMs).toBe(50)
    keeper.start()
    await untilAsync(async () => calls === 1, 5000, 'first renewal')
    // several of its turns pass while the first renewal is stuck
    await intervalsPass(4)
    expect(calls).toBe(1)
    release()
    await untilAsync(async () => calls >= 3, 5000, 'renewals resume')
    keeper.stop()
    const stoppedAt = calls
    await intervalsPass(3)
    expect(calls).toBe(stoppedAt)
    expect(most).toBe(1)
  })

  test('no claimer outside platform/jobs computes its own renewal interval or writes its own claim statement', () => {
    const src = join(import.meta.dir, '../../../src')
    const offenders: string[] = []
    const walk = (d: string) => {
      for (const name of readdirSync(d)) {
        const p = join(d, name)
        if (statSync(p).isDirectory()) walk(p)
        else if (p.endsWith('.ts') && !p.includes('platform/jobs')) {
          const text = readFileSync(p, 'utf8')
          if (/leaseMs\s*\/\s*3/.test(text) || /lease_expires_at IS NULL OR lease_expires_at <=/.test(text)) offenders.push(relative(src, p))
        }
      }
    }
    walk(src)
    expect(offenders).toEqual([])
  })
})
