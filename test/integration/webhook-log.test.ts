// Webhook deliveries leave one log line per attempt (issue 23, "Logs"): success and failure, with
// the event type, the endpoint's host, the status and the attempt number; never the signing
// secret, the body, or the path and query of the endpoint (a receiver may take a token there).
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { ledger } from '../../src/features/calls/records/index.ts'
import type { TestAppliance } from '../helpers/appliance.ts'
import { seedCall } from '../helpers/call-records.ts'
import { startLoggedAppliance } from '../helpers/logged-appliance.ts'
import { until } from '../helpers/until.ts'
import { startReceiver, type Receiver } from '../helpers/webhook-receiver.ts'

let t: TestAppliance & { logs: string[] }
let rx: Receiver

beforeAll(async () => {
  rx = startReceiver()
  t = await startLoggedAppliance({ WEBHOOK_ALLOW_HTTP: true, WEBHOOK_ALLOW_PRIVATE: true, WEBHOOK_RETRY_SCHEDULE: '50ms,50ms', BACKGROUND_POLL_MS: 25 })
})
afterAll(async () => {
  await t?.stop()
  await rx?.stop()
})

const attempts = () => t.logs.map((l) => JSON.parse(l) as Record<string, any>).filter((r) => r.event === 'webhook_attempt')

test('a failed attempt and the delivered retry are each one line with event type, host, status and attempt; no secret, token or body', async () => {
  const agentId = (await t.api('POST', '/api/agents', { body: { name: 'Hooked', webhookUrl: `${rx.url}?token=receiver-token-123` } })).body.agent.id
  const secret = (await t.api('GET', `/api/workspaces/${t.workspaceId}/webhook-secret`)).body.secret as string
  rx.answers.push(500)
  const db = t.appliance.database.db
  const id = await seedCall(db, { workspaceId: t.workspaceId, agentId, agentName: 'Hooked', status: 'in_progress' })
  await ledger.finaliseCall(db, id, { status: 'ended', outcome: 'completed', end_reason: 'caller_hangup', ended_at: new Date().toISOString(), duration_sec: 12 })
  await until(() => attempts().length === 2, 50_000, 'two attempt lines')
  const [failed, delivered] = attempts()
  const host = `127.0.0.1:${rx.port}`
  expect(failed).toMatchObject({ level: 30, msg: 'webhook attempt failed', eventType: 'call.completed', host, status: 500, attempt: 1, next: 'pending' })
  expect(delivered).toMatchObject({ level: 30, msg: 'webhook delivered', eventType: 'call.completed', host, status: 200, attempt: 2 })
  expect(delivered?.deliveryId).toBe(failed?.deliveryId)
  const all = t.logs.join('\n')
  expect(all).not.toContain('receiver-token-123')
  expect(all).not.toContain(secret)
  expect(all).not.toContain(secret.replace(/^whsec_/, ''))
  expect(all).not.toContain(rx.received[0]!.body)
}, 120_000)
