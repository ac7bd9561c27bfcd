// The outbox's rules on a real SQLite file: held events, leases, and recovery after a crash.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { migrateToLatest, openDatabase, type DbHandle } from '../../../src/platform/db/index.ts'
import { enqueueWebhookEvent, releaseCallEvents } from '../../../src/features/webhooks/index.ts'
import { claimDue, recordAttempt } from '../../../src/features/webhooks/outbox.ts'

let h: DbHandle
const dir = mkdtempSync(join(tmpdir(), 'outbox-'))
const t0 = new Date('2026-11-23T18:00:00.000Z')
const at = (ms: number) => new Date(t0.getTime() + ms)

beforeAll(async () => {
  h = openDatabase(join(dir, 'a.db'))
  await migrateToLatest(h.db)
  h.sqlite.exec("INSERT INTO workspaces (id, name, created_at, updated_at) VALUES ('ws', 'w', 'x', 'x')")
  h.sqlite.exec("INSERT INTO calls (id, workspace_id, type, from_number, to_number, status, created_at) VALUES ('call_1', 'ws', 'inbound', '+1', '+2', 'ended', 'x')")
})
afterAll(async () => {
  await h.close()
  rmSync(dir, { recursive: true, force: true })
})

describe('webhook outbox', () => {
  test('a held event is not due before its hold ends, unless released; then exactly one sender claims it', async () => {
    const id = await enqueueWebhookEvent(h.db, { workspaceId: 'ws', url: 'https://x.example/h', type: 'call.completed', callId: 'call_1', holdUntil: at(60_000), now: t0 })
    expect(await claimDue(h.db, 'a', at(1000), 60_000, 10)).toEqual([])
    await releaseCallEvents(h.db, 'call_1', at(2000))
    const [claimed] = await claimDue(h.db, 'a', at(2000), 60_000, 10)
    expect(claimed?.id).toBe(id)
    expect(claimed?.payload).toBeNull()
    expect(await claimDue(h.db, 'b', at(3000), 60_000, 10)).toEqual([])
  })

  test('a sender that died holding a lease loses it when it expires: another claims the same event, and the dead one cannot record over it', async () => {
    h.sqlite.exec('DELETE FROM webhook_deliveries')
    const id = await enqueueWebhookEvent(h.db, { workspaceId: 'ws', url: 'https://x.example/h', type: 'job.started', data: { jobId: 'j' }, now: at(100_000) })
    const [mine] = await claimDue(h.db, 'dead', at(100_000), 60_000, 1)
    expect(mine?.id).toBe(id)
    expect(await claimDue(h.db, 'alive', at(159_999), 60_000, 1)).toEqual([])
    const [again] = await claimDue(h.db, 'alive', at(160_000), 60_000, 1)
    expect(again?.id).toBe(id)
    expect(JSON.parse(again!.payload!)).toEqual({ type: 'job.started', timestamp: at(100_000).toISOString(), data: { jobId: 'j' } })
    const result = { statusCode: 200, latencyMs: 3, error: null, attemptedAt: at(161_000), next: { status: 'delivered' as const } }
    expect(await recordAttempt(h.db, mine!, 'dead', result)).toBe(false)
    expect(await recordAttempt(h.db, again!, 'alive', result)).toBe(true)
    const row = h.sqlite.query('SELECT status, attempts, lease_owner FROM webhook_deliveries WHERE id = ?').get(id)
    expect(row).toEqual({ status: 'delivered', attempts: 1, lease_owner: null })
    expect(h.sqlite.query('SELECT count(*) AS n FROM webhook_attempts WHERE delivery_id = ?').get(id)).toEqual({ n: 1 })
  })
})
