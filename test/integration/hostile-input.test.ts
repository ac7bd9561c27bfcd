// Requests an attacker or a careless client sends: every one gets a 4xx with the one error body,
// changes nothing, stays small, and never holds the event loop (issue 11, findings 2-6).
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { type Api, type ApiResponse, memberKey, startTestAppliance, type TestAppliance, apiClient } from '../helpers/appliance.ts'
import { LagProbe, lagDuring } from '../helpers/lag-probe.ts'
import { SipPeer } from '../helpers/sip-peer.ts'

let t: TestAppliance
let member: Api
let agent: { id: string; version: number; updatedAt: string }
let numberId: string
const probe = new LagProbe()

beforeAll(async () => {
  t = await startTestAppliance()
  member = apiClient(t.url, (await memberKey(t, 'hostile@example.com')).key)
  agent = (await member('POST', '/api/agents', { body: { name: 'Target' } })).body.agent
  await t.api('POST', `/api/workspaces/${t.workspaceId}/payment-methods`, { body: { provider: 'manual', reference: 'po 1' } })
  const n = await t.api('POST', '/api/phone-numbers', { body: { e164: '+14155550170', sipTerminationUri: 'sip:127.0.0.1:5999' } })
  numberId = n.body.phoneNumber.id
  probe.start()
})
afterAll(async () => {
  probe.stop()
  await t.stop()
})

const expectErrorBody = (r: ApiResponse, status: number) => {
  expect(r.status).toBe(status)
  expect(r.body.error).toMatchObject({ code: expect.any(String), message: expect.any(String), requestId: r.headers.get('x-request-id') })
}
const nested = (bytes: number) => '['.repeat(bytes / 2) + ']'.repeat(bytes / 2)
const agentNow = async () => (await member('GET', `/api/agents/${agent.id}`)).body.agent

describe('deeply nested bodies', () => {
  test('a 50 KB body of nested brackets on the workflow routes is refused at once, and /health and SIP are answered meanwhile', async () => {
    const options = (port: number) =>
      `OPTIONS sip:x@127.0.0.1 SIP/2.0\r\nVia: SIP/2.0/UDP 127.0.0.1:${port};branch=z9hG4bKlag\r\nFrom: <sip:s@127.0.0.1>;tag=a\r\n` +
      `To: <sip:x@127.0.0.1>\r\nCall-ID: lag-probe\r\nCSeq: 1 OPTIONS\r\nContent-Length: 0\r\n\r\n`
    const sip = await SipPeer.udp(t.appliance.sip.udp!)
    for (const size of [20_000, 50_000]) {
      const body = nested(size)
      const { result, lagMs, budgetMs } = await lagDuring(probe, () =>
        Promise.all([
          member('PUT', `/api/agents/${agent.id}/workflow`, { body }),
          member('POST', `/api/agents/${agent.id}/workflow/test-run`, { body }),
          fetch(`${t.url}/health`),
          (sip.send(options(sip.port)), sip.waitFor((m) => m.kind === 'response', 20_000)),
        ]),
      )
      const [put, run, health] = result
      expectErrorBody(put, 422)
      expectErrorBody(run, 422)
      expect(put.body.error.details.fields[0]).toEqual({ path: 'body', location: 'body', message: 'is nested deeper than 32 levels' })
      expect(health.status).toBe(200)
      expect(lagMs).toBeLessThan(budgetMs)
    }
    sip.close()
  })

  test('a payment-method body nested 20,000 deep is a 422, not a 500', async () => {
    const body = '{"a":'.repeat(20_000) + '1' + '}'.repeat(20_000)
    expectErrorBody(await t.api('POST', `/api/workspaces/${t.workspaceId}/payment-methods`, { body }), 422)
    const arrays = `{"provider":"manual","reference":"x","extra":${nested(40_000)}}`
    expectErrorBody(await t.api('POST', `/api/workspaces/${t.workspaceId}/payment-methods`, { body: arrays }), 422)
  })

  test('32 levels are accepted: the limit does not refuse ordinary bodies', async () => {
    const deep = `{"name":"Deep","toolConfigs":{"http_request":{"url":"https://example.com/","description":"d","parameters":${'{"a":'.repeat(28)}1${'}'.repeat(28)}}}}`
    const r = await member('POST', '/api/agents', { body: deep })
    expect(r.body.error?.details?.fields?.[0]?.message).not.toBe('is nested deeper than 32 levels')
  })
})

describe('bodies that are not objects', () => {
  const values = ['"hello"', '42', '[1,2]', 'null', 'true']

  test('PUT /api/agents/{id} refuses each with 422 and leaves the version alone', async () => {
    const before = await agentNow()
    for (const body of values) expectErrorBody(await member('PUT', `/api/agents/${agent.id}`, { body }), 422)
    expect(await agentNow()).toEqual(before)
  })

  test('PATCH /api/phone-numbers/{id} and PATCH /api/workspaces/{id} refuse each with 422 and change nothing', async () => {
    const number = (await t.api('GET', `/api/phone-numbers/${numberId}`)).body
    const workspace = (await t.api('GET', `/api/workspaces/${t.workspaceId}`)).body
    for (const body of values) {
      expectErrorBody(await t.api('PATCH', `/api/phone-numbers/${numberId}`, { body }), 422)
      expectErrorBody(await t.api('PATCH', `/api/workspaces/${t.workspaceId}`, { body }), 422)
    }
    expect((await t.api('GET', `/api/phone-numbers/${numberId}`)).body).toEqual(number)
    expect((await t.api('GET', `/api/workspaces/${t.workspaceId}`)).body).toEqual(workspace)
  })
})

describe('toolConfigs, enabledTools and dynamicVariables', () => {
  test('toolConfigs named after Object.prototype members is a 422 naming the field, not a 500', async () => {
    for (const name of ['constructor', 'toString', '__proto__', 'hasOwnProperty']) {
      const body = `{"toolConfigs":{${JSON.stringify(name)}:{}}}`
      for (const r of [await member('PUT', `/api/agents/${agent.id}`, { body }), await member('POST', '/api/agents', { body: `{"name":"p",${body.slice(1)}` })]) {
        expectErrorBody(r, 422)
        // "__proto__" and "toString" are refused as keys anywhere in a body, before any schema sees them
        expect(r.body.error.details.fields[0].path).toBe(['__proto__', 'toString'].includes(name) ? 'body' : `toolConfigs.${name}`)
      }
    }
  })

  test('enabledTools with prototype names is refused and nothing is stored', async () => {
    const before = await agentNow()
    for (const name of ['constructor', 'toString', '__proto__', 'hasOwnProperty', 'valueOf']) {
      const r = await member('PUT', `/api/agents/${agent.id}`, { body: { enabledTools: [name] } })
      expectErrorBody(r, 422)
      expect(r.body.error.details.fields.map((f: { path: string }) => f.path)).toEqual(['enabledTools[0]'])
    }
    expect(await agentNow()).toEqual(before)
  })

  test('an object with its own toString where a string belongs is a 422, not a 500', async () => {
    for (const [path, body] of [
      ['/api/calls', { phoneNumberId: numberId, to: { toString: true } }],
      ['/api/agents', { name: 'x', llmModel: { toString: 1 } }],
      [`/api/workspaces/${t.workspaceId}/members`, { email: [{ toString: 'x' }] }],
    ] as const) {
      expectErrorBody(await t.api('POST', path, { body }), 422)
    }
  })

  test('toolConfigs as a 900,000-character string is a 422, not a 500', async () => {
    expectErrorBody(await member('PUT', `/api/agents/${agent.id}`, { body: { toolConfigs: 'a'.repeat(900_000) } }), 422)
  })

  test('a long string where a record or a list of objects belongs is refused without expanding it', async () => {
    const bodies = [
      [`/api/agents/${agent.id}`, 'PUT', JSON.stringify({ toolConfigs: 'a'.repeat(900_000) })],
      ['/api/calls', 'POST', JSON.stringify({ phoneNumberId: numberId, to: '+14155550123', dynamicVariables: 'a'.repeat(900_000) })],
      [`/api/agents/${agent.id}/workflow/test-run`, 'POST', JSON.stringify({ inputs: 'x'.repeat(900_000) })],
      [`/api/agents/${agent.id}/workflow`, 'PUT', JSON.stringify({ nodes: 'x'.repeat(900_000), edges: [] })],
    ] as const
    for (const [path, method, body] of bodies) {
      const { result: r, lagMs, budgetMs } = await lagDuring(probe, () => member(method, path, { body }))
      expectErrorBody(r, 422)
      expect(lagMs).toBeLessThan(budgetMs)
    }
  })

  test('a 200,000-character toolConfigs gets a small 422 that does not echo it', async () => {
    const bodies = ['x'.repeat(200_000), Object.fromEntries(Array.from({ length: 20_000 }, (_, i) => [`t${i}`, {}]))].map((toolConfigs) => JSON.stringify({ toolConfigs }))
    for (const body of bodies) {
      const put = async () => {
        const res = await fetch(`${t.url}/api/agents/${agent.id}`, {
          method: 'PUT',
          headers: { authorization: `Bearer ${t.adminKey}`, 'content-type': 'application/json' },
          body,
        })
        return { status: res.status, raw: await res.text() }
      }
      const { result, lagMs, budgetMs } = await lagDuring(probe, put)
      expect(result.status).toBe(422)
      expect(result.raw.length).toBeLessThan(4096)
      expect(JSON.parse(result.raw).error.details.fields.length).toBeLessThanOrEqual(10)
      expect(lagMs).toBeLessThan(budgetMs)
    }
  })

  test('dynamicVariables that are not an object of named strings are refused and no call is stored', async () => {
    const bad = ['abc', 'a'.repeat(100_000), ['x'], { '0': 'a' }, { 'my-var': 'a' }, { constructor: 'x' }, { name: 1 }, Object.fromEntries(Array.from({ length: 65 }, (_, i) => [`v${i}`, 'x']))]
    for (const dynamicVariables of bad) {
      const r = await member('POST', '/api/calls', { body: { phoneNumberId: numberId, to: '+14155550123', dynamicVariables } })
      expectErrorBody(r, 422)
      expect(r.body.error.details.fields[0].path).toStartWith('dynamicVariables')
      expect(JSON.stringify(r.body).length).toBeLessThan(4096)
    }
    expect((await member('GET', '/api/calls')).body.calls).toEqual([])
  })
})
