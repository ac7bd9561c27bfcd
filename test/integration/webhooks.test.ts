// The post-call webhook: written in the transaction that ends a call, held for the analysis,
// signed by the Standard Webhooks scheme (verified here with the standardwebhooks library),
// retried with the same webhook-id, turned off by 410, and checked against the address rules.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { Webhook } from 'standardwebhooks'
import { ledger } from '../../src/features/calls/records/index.ts'
import { enqueueWebhookEvent } from '../../src/features/webhooks/index.ts'
import { startTestAppliance, type TestAppliance } from '../helpers/appliance.ts'
import { seedCall } from '../helpers/call-records.ts'
import { until } from '../helpers/until.ts'
import { startReceiver, type Receiver } from '../helpers/webhook-receiver.ts'

let t: TestAppliance
let rx: Receiver
let agentId: string
let secret: string

beforeAll(async () => {
  rx = startReceiver()
  t = await startTestAppliance({ WEBHOOK_ALLOW_HTTP: true, WEBHOOK_ALLOW_PRIVATE: true, WEBHOOK_RETRY_SCHEDULE: '50ms,50ms,50ms,50ms', BACKGROUND_POLL_MS: 25 })
  agentId = (await t.api('POST', '/api/agents', { body: { name: 'Hooked', webhookUrl: rx.url } })).body.agent.id
  secret = (await t.api('GET', `/api/workspaces/${t.workspaceId}/webhook-secret`)).body.secret
})
afterAll(async () => {
  await t?.stop()
  await rx?.stop()
})

/** A call of the agent that ends now through the real finalisation hook. */
async function endCall(agent = agentId): Promise<string> {
  const db = t.appliance.database.db
  const id = await seedCall(db, { workspaceId: t.workspaceId, agentId: agent, agentName: 'Hooked', status: 'in_progress' })
  await ledger.finaliseCall(db, id, { status: 'ended', outcome: 'completed', end_reason: 'caller_hangup', ended_at: new Date().toISOString(), duration_sec: 12 })
  return id
}

const forCall = (id: string) => rx.received.filter((r) => JSON.parse(r.body).data?.call?.id === id)
const deliveriesOf = async (id: string) => (await t.api('GET', `/api/webhook-deliveries?callId=${id}`)).body.deliveries

/** Polls the deliveries API until the call's delivery satisfies `ok`; returns it. */
async function deliveryWhen(id: string, ok: (d: any) => boolean, ms = 5000): Promise<any> {
  let d: any
  const end = Date.now() + ms
  while (!(d && ok(d))) {
    if (Date.now() > end) throw new Error(`delivery of ${id} did not reach the state: ${JSON.stringify(d)}`)
    await Bun.sleep(20)
    d = (await deliveriesOf(id))[0]
  }
  return d
}

describe('post-call webhook', () => {
  test('the ended call is POSTed once analysed as {type, timestamp, data: export document}, signed so the standardwebhooks library verifies it', async () => {
    const id = await endCall()
    await until(() => forCall(id).length === 1, 5000, 'the webhook')
    const got = forCall(id)[0]!
    expect(got.headers['content-type']).toBe('application/json')
    const event = new Webhook(secret).verify(got.body, got.headers) as any
    expect(event.type).toBe('call.completed')
    expect(typeof event.timestamp).toBe('string')
    expect(event.data.call).toMatchObject({ id, agentId, outcome: 'completed', duration: 12 })
    expect(event.data.analysis.status).toBe('completed')
    expect(event.data.analysis.summary.length).toBeGreaterThan(0)
    // the attempt is recorded after the receiver answered: wait for it
    const d = await deliveryWhen(id, (x) => x.status !== 'pending')
    expect(d).toMatchObject({ id: got.headers['webhook-id'], status: 'delivered', attemptCount: 1, type: 'call.completed', url: rx.url })
    expect(d.attempts[0]).toMatchObject({ statusCode: 200, error: null })
    expect(() => new Webhook(`whsec_${Buffer.alloc(24, 1).toString('base64')}`).verify(got.body, got.headers)).toThrow()
  })

  test('a receiver answering 500 three times then 200 gets the event four times with the same webhook-id', async () => {
    rx.answers.push(500, 500, 500)
    const id = await endCall()
    await until(() => forCall(id).length === 4, 8000, 'four attempts')
    const ids = new Set(forCall(id).map((r) => r.headers['webhook-id']))
    expect(ids.size).toBe(1)
    expect(new Set(forCall(id).map((r) => r.body)).size).toBe(1)
    for (const r of forCall(id)) new Webhook(secret).verify(r.body, r.headers)
    const d = await deliveryWhen(id, (x) => x.status === 'delivered')
    expect(d.attempts.map((a: any) => a.statusCode)).toEqual([500, 500, 500, 200])
    expect(d.attempts[0]).toMatchObject({ error: 'http_status', errorDetail: 'HTTP 500' })
    expect(d.attempts.every((a: any) => typeof a.latencyMs === 'number')).toBe(true)
    expect((await t.api('GET', `/api/webhook-deliveries?status=delivered&callId=${id}`)).body.deliveries.length).toBe(1)
    expect((await t.api('GET', `/api/webhook-deliveries?status=failed&callId=${id}`)).body.deliveries.length).toBe(0)
  })

  test('the retry schedule runs out: the delivery is failed, and POST .../retry sends it again with the same id', async () => {
    rx.answers.push(503, 503, 503, 503, 503)
    const id = await endCall()
    await until(() => forCall(id).length === 5, 8000, 'five attempts')
    const d = await deliveryWhen(id, (x) => x.status === 'failed')
    expect(d.attemptCount).toBe(5)
    const retry = await t.api('POST', `/api/webhook-deliveries/${d.id}/retry`)
    expect(retry.status).toBe(200)
    expect(retry.body.delivery.status).toBe('pending')
    await until(() => forCall(id).length === 6, 5000, 'the manual retry')
    expect(forCall(id)[5]!.headers['webhook-id']).toBe(d.id)
    expect((await t.api('POST', '/api/webhook-deliveries/msg_nope/retry')).status).toBe(404)
  })

  test('after a rotation both secrets verify for 24 h: receivers keep working with either', async () => {
    const rotated = await t.api('POST', `/api/workspaces/${t.workspaceId}/webhook-secret`)
    expect(rotated.status).toBe(200)
    expect(rotated.body.secret).not.toBe(secret)
    expect(rotated.body.secret).toStartWith('whsec_')
    expect(rotated.body.previousSecret).toBe(secret)
    const grace = Date.parse(rotated.body.previousValidUntil) - Date.now()
    expect(grace).toBeGreaterThan(23.9 * 3_600_000)
    expect(grace).toBeLessThanOrEqual(24 * 3_600_000)
    const id = await endCall()
    await until(() => forCall(id).length === 1, 5000, 'the webhook')
    const got = forCall(id)[0]!
    expect(got.headers['webhook-signature']!.split(' ').length).toBe(2)
    expect((new Webhook(secret).verify(got.body, got.headers) as any).data.call.id).toBe(id)
    expect((new Webhook(rotated.body.secret).verify(got.body, got.headers) as any).data.call.id).toBe(id)
    secret = rotated.body.secret
  })

  test("a 410 turns the agent's webhook off with a note; later calls send nothing", async () => {
    const agent = (await t.api('POST', '/api/agents', { body: { name: 'Gone', webhookUrl: `${rx.url}?gone` } })).body.agent.id
    rx.answers.push(410)
    const id = await endCall(agent)
    await until(() => forCall(id).length === 1, 5000, 'the webhook')
    const d = await deliveryWhen(id, (x) => x.status === 'gone')
    expect(d).toMatchObject({ lastError: 'http_status', lastErrorDetail: expect.stringContaining('410') })
    expect((await t.api('GET', `/api/agents/${agent}`)).body.agent.webhookUrl).toBe('')
    const next = await endCall(agent)
    expect(await deliveriesOf(next)).toEqual([])
  })

  test('members may read deliveries but only admins read or rotate the secret', async () => {
    const { memberKey, apiClient } = await import('../helpers/appliance.ts')
    const m = apiClient(t.url, (await memberKey(t, 'hooks-member@example.com')).key)
    expect((await m('GET', '/api/webhook-deliveries')).status).toBe(200)
    expect((await m('GET', `/api/workspaces/${t.workspaceId}/webhook-secret`)).status).toBe(403)
    expect((await m('POST', `/api/workspaces/${t.workspaceId}/webhook-secret`)).status).toBe(403)
  })
})

describe('calls cut by a crash', () => {
  test('a call left in progress by the last run is closed as failed at the next start, analysed, and sent to the webhook', async () => {
    const first = await startTestAppliance({ WEBHOOK_ALLOW_HTTP: true, WEBHOOK_ALLOW_PRIVATE: true, BACKGROUND_POLL_MS: 25 })
    const agent = (await first.api('POST', '/api/agents', { body: { name: 'Cut', webhookUrl: rx.url } })).body.agent.id
    const id = await seedCall(first.appliance.database.db, { workspaceId: first.workspaceId, agentId: agent, status: 'in_progress' })
    await first.stop({ keepData: true })
    const again = await startTestAppliance({ WEBHOOK_ALLOW_HTTP: true, WEBHOOK_ALLOW_PRIVATE: true, BACKGROUND_POLL_MS: 25 }, first.dataDir)
    try {
      await until(() => forCall(id).length === 1, 5000, 'the webhook of the cut call')
      const secret2 = (await again.api('GET', `/api/workspaces/${again.workspaceId}/webhook-secret`)).body.secret
      const event = new Webhook(secret2).verify(forCall(id)[0]!.body, forCall(id)[0]!.headers) as any
      expect(event.data.call).toMatchObject({ id, outcome: 'failed', endReason: 'appliance_restart' })
      expect(event.data.analysis.status).toBe('completed')
    } finally {
      await again.stop()
    }
  })
})

describe('address rules at send time', () => {
  test('with private addresses not allowed, a delivery to loopback is refused at send time and never connects', async () => {
    const strict = await startTestAppliance({ WEBHOOK_RETRY_SCHEDULE: '1h', BACKGROUND_POLL_MS: 25 })
    const before = rx.received.length
    try {
      const db = strict.appliance.database.db
      const id = await enqueueWebhookEvent(db, { workspaceId: strict.workspaceId, url: rx.url, type: 'test.event', data: { hello: 'world' } })
      const read = async () => (await strict.api('GET', '/api/webhook-deliveries')).body.deliveries.find((x: any) => x.id === id)
      let d = await read()
      for (const end = Date.now() + 5000; d?.attemptCount !== 1; d = await read()) {
        if (Date.now() > end) throw new Error(`no refused attempt: ${JSON.stringify(d)}`)
        await Bun.sleep(20)
      }
      expect(d.status).toBe('pending')
      expect(d.attempts[0].statusCode).toBeNull()
      expect(d.attempts[0]).toMatchObject({ error: 'address_refused', errorDetail: expect.stringContaining('refused by the address rules') })
      expect(rx.received.length).toBe(before)
    } finally {
      await strict.stop()
    }
  })
})
