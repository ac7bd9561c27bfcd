// Issue 24, finding 5: GET /api/webhook-deliveries, readable by members, showed
// `connect ECONNREFUSED 192.0.2.2:9` next to `self signed certificate`, telling closed ports from
// open ones. Members now read a coarse code; admins (and the log) keep the detail.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import https from 'node:https'
import net from 'node:net'
import { join } from 'node:path'
import { enqueueWebhookEvent } from '../../src/features/webhooks/index.ts'
import { apiClient, type Api, memberKey, startTestAppliance, type TestAppliance } from '../helpers/appliance.ts'
import { tempDir } from '../helpers/tmp.ts'
import { untilAsync } from '../helpers/until.ts'

let t: TestAppliance
let member: Api
let tls: https.Server
let closedPort: number

/** A port nothing listens on: bound once, then closed (port 9 of the probe may be taken here). */
async function freeClosedPort(): Promise<number> {
  const s = net.createServer()
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r))
  const port = (s.address() as net.AddressInfo).port
  await new Promise<void>((r) => s.close(() => r()))
  return port
}

beforeAll(async () => {
  const dir = tempDir('webhook-errors-')
  const gen = Bun.spawnSync(['openssl', 'req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=127.0.0.1', '-keyout', join(dir, 'k.pem'), '-out', join(dir, 'c.pem')])
  if (gen.exitCode !== 0) throw new Error(gen.stderr.toString())
  tls = https.createServer({ cert: readFileSync(join(dir, 'c.pem')), key: readFileSync(join(dir, 'k.pem')) }, (_req, res) => res.end('ok'))
  await new Promise<void>((r) => tls.listen(0, '127.0.0.1', r))
  closedPort = await freeClosedPort()
  // loopback stands in for the probe's 192.0.2.2, which was the probe machine's own address
  t = await startTestAppliance({ WEBHOOK_ALLOW_PRIVATE: true, WEBHOOK_RETRY_SCHEDULE: '1h', BACKGROUND_POLL_MS: 25 })
  member = apiClient(t.url, (await memberKey(t, 'probe-member@example.com')).key)
})
afterAll(async () => {
  await t?.stop()
  tls?.close()
})

async function failedDelivery(url: string): Promise<string> {
  const id = await enqueueWebhookEvent(t.appliance.database.db, { workspaceId: t.workspaceId, url, type: 'test.event', data: { n: 1 } })
  await untilAsync(async () => (await t.api('GET', '/api/webhook-deliveries')).body.deliveries.find((d: any) => d.id === id)?.attemptCount === 1, 15_000, `the attempt to ${url}`, 25)
  return id
}

const find = async (api: Api, id: string) => (await api('GET', '/api/webhook-deliveries')).body.deliveries.find((d: any) => d.id === id)

describe('webhook delivery errors', () => {
  test('a member reads connection_failed and tls_failed, never the network error; an admin reads errorDetail', async () => {
    const refused = await failedDelivery(`https://127.0.0.1:${closedPort}/`)
    const selfSigned = await failedDelivery(`https://127.0.0.1:${(tls.address() as net.AddressInfo).port}/`)

    const m1 = await find(member, refused)
    expect(m1).toMatchObject({ status: 'pending', lastStatusCode: null, lastError: 'connection_failed' })
    expect(m1.attempts[0]).toMatchObject({ statusCode: null, error: 'connection_failed' })
    const m2 = await find(member, selfSigned)
    expect(m2).toMatchObject({ lastError: 'tls_failed' })
    for (const d of [m1, m2]) {
      expect(d).not.toHaveProperty('lastErrorDetail')
      expect(d.attempts[0]).not.toHaveProperty('errorDetail')
      expect(JSON.stringify(d)).not.toMatch(/ECONNREFUSED|self.signed|certificate/i)
    }

    const a1 = await find(t.api, refused)
    expect(a1).toMatchObject({ lastError: 'connection_failed', lastErrorDetail: expect.stringContaining('ECONNREFUSED') })
    expect(a1.attempts[0].errorDetail).toContain(`ECONNREFUSED 127.0.0.1:${closedPort}`)
    const a2 = await find(t.api, selfSigned)
    expect(a2).toMatchObject({ lastError: 'tls_failed', lastErrorDetail: expect.stringMatching(/self.signed/i) })
  })

  test('a member retrying a delivery gets it back without the detail', async () => {
    const id = await failedDelivery(`https://127.0.0.1:${closedPort}/again`)
    const retried = await member('POST', `/api/webhook-deliveries/${id}/retry`)
    expect(retried.status).toBe(200)
    expect(retried.body.delivery.attempts[0]).toEqual({ attemptedAt: expect.any(String), statusCode: null, latencyMs: expect.any(Number), error: 'connection_failed' })
  })
})

describe('webhook URLs in the documentation and benchmarking ranges', () => {
  test("the probe's https://192.0.2.2/ is refused with 422 by default and saved once the operator lists its network", async () => {
    const strict = await startTestAppliance({})
    const listed = await startTestAppliance({ WEBHOOK_ALLOW_NETWORKS: '192.0.2.0/24' })
    try {
      const refused = await strict.api('POST', '/api/agents', { body: { name: 'Scanner', webhookUrl: 'https://192.0.2.2/' } })
      expect(refused.status).toBe(422)
      expect(refused.body.error).toMatchObject({ code: 'validation_failed' })
      expect(JSON.stringify(refused.body)).toContain('documentation address')
      for (const webhookUrl of ['https://198.51.100.7/', 'https://203.0.113.1:8443/x', 'https://198.18.0.1/', 'https://[2001:db8::1]/']) {
        expect((await strict.api('POST', '/api/agents', { body: { name: 'Scanner', webhookUrl } })).status).toBe(422)
      }
      const saved = await listed.api('POST', '/api/agents', { body: { name: 'Lab', webhookUrl: 'https://192.0.2.2/' } })
      expect(saved.status).toBe(200)
      expect(saved.body.agent.webhookUrl).toBe('https://192.0.2.2/')
      expect((await listed.api('POST', '/api/agents', { body: { name: 'Lab', webhookUrl: 'https://198.51.100.7/' } })).status).toBe(422)
    } finally {
      await strict.stop()
      await listed.stop()
    }
  })
})
