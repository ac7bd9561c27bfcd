// Clients probing other workspaces, guessing keys or sending names meant to mislead a reader
// (issue 11, findings 7 and 10).
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { type Api, type ApiResponse, apiClient, startTestAppliance, type TestAppliance } from '../helpers/appliance.ts'

let t: TestAppliance
let other: Api
const theirs: Record<string, string> = {}
const ours: Record<string, string> = {}

beforeAll(async () => {
  t = await startTestAppliance({ AUTH_FAILURE_BURST: 5, AUTH_FAILURES_PER_MIN: 6 })
  const ws = await t.api('POST', '/api/workspaces', { body: { name: 'Their workspace' } })
  other = apiClient(t.url, ws.body.apiKey.key)
  for (const [api, ids] of [[t.api, ours], [other, theirs]] as const) {
    const wsId = ids === ours ? t.workspaceId : ws.body.workspace.id
    await api('POST', `/api/workspaces/${wsId}/payment-methods`, { body: { provider: 'manual', reference: 'po' } })
    ids.agent = (await api('POST', '/api/agents', { body: { name: 'Caller', agentType: 'outbound' } })).body.agent.id
    const e164 = ids === ours ? '+14155550181' : '+14155550182'
    const n = await api('POST', '/api/phone-numbers', { body: { e164, sipTerminationUri: 'sip:127.0.0.1:5999' } })
    ids.number = n.body.phoneNumber.id
    await api('PATCH', `/api/phone-numbers/${ids.number}`, { body: { outboundAgentId: ids.agent } })
  }
})
afterAll(() => t.stop())

/** The error as a client sees it, with the probed id replaced so a foreign and a missing id compare. */
const answer = (r: ApiResponse, id: string) => {
  const { requestId: _, ...error } = r.body.error
  return { status: r.status, error: JSON.parse(JSON.stringify(error).replaceAll(id, 'ID')) }
}

describe("another workspace's ids answer exactly like missing ones", () => {
  test('POST /api/calls with a foreign phoneNumberId', async () => {
    const call = (phoneNumberId: string) => t.api('POST', '/api/calls', { body: { phoneNumberId, to: '+14155550123' } })
    const foreign = await call(theirs.number!)
    expect(foreign.status).toBe(422)
    expect(answer(foreign, theirs.number!)).toEqual(answer(await call('pn_00000000000000000000000000'), 'pn_00000000000000000000000000'))
  })

  test('POST /api/calls with a foreign agentId', async () => {
    const call = (agentId: string) => t.api('POST', '/api/calls', { body: { phoneNumberId: ours.number, to: '+14155550123', agentId } })
    expect(answer(await call(theirs.agent!), theirs.agent!)).toEqual(answer(await call('ag_00000000000000000000000000'), 'ag_00000000000000000000000000'))
  })

  test('agents, workflows and number assignment', async () => {
    const missing = 'ag_00000000000000000000000000'
    const probes: ((id: string) => Promise<ApiResponse>)[] = [
      (id) => t.api('GET', `/api/agents/${id}`),
      (id) => t.api('PUT', `/api/agents/${id}`, { body: { name: 'Mine now' } }),
      (id) => t.api('PUT', `/api/agents/${id}/workflow`, { body: { nodes: [{ id: 's', type: 'start' }], edges: [] } }),
      (id) => t.api('POST', `/api/agents/${id}/workflow/test-run`, { body: { inputs: [] } }),
      (id) => t.api('PATCH', `/api/phone-numbers/${ours.number}`, { body: { outboundAgentId: id } }),
    ]
    for (const probe of probes) expect(answer(await probe(theirs.agent!), theirs.agent!)).toEqual(answer(await probe(missing), missing))
    expect((await other('GET', `/api/agents/${theirs.agent}`)).body.agent.name).toBe('Caller')
  })
})

describe('names and labels', () => {
  const bad = ['a\u0000b', 'line\nbreak', 'cr\rhere', 'tab\there', 'esc\u001b[31m', 'c1\u0085', 'evil\u202egnp.exe', 'iso\u2066late', 'sep\u2028']

  test('refuse control characters and bidi overrides with 422 on every name field, and store nothing', async () => {
    const ws = `/api/workspaces/${t.workspaceId}`
    const writes: [string, string, (name: string) => unknown][] = [
      ['POST', '/api/workspaces', (name) => ({ name })],
      ['PATCH', ws, (name) => ({ name })],
      ['POST', `${ws}/api-keys`, (name) => ({ name })],
      ['POST', '/api/agents', (name) => ({ name })],
      ['PUT', `/api/agents/${ours.agent}`, (name) => ({ name })],
      ['PATCH', `/api/phone-numbers/${ours.number}`, (label) => ({ label })],
      ['POST', '/api/phone-numbers', (label) => ({ e164: '+14155550189', label, sipTerminationUri: 'sip:127.0.0.1:5999' })],
      ['POST', `${ws}/payment-methods`, (reference) => ({ provider: 'manual', reference })],
    ]
    for (const [method, path, body] of writes) {
      for (const name of bad) {
        const r = await t.api(method, path, { body: body(name) })
        expect(r.status, `${method} ${path} ${JSON.stringify(name)}`).toBe(422)
        expect(r.body.error.details.fields[0].message).toContain('control characters')
      }
    }
    const edge = await t.api('PUT', `/api/agents/${ours.agent}/workflow`, {
      body: { nodes: [{ id: 's', type: 'start' }, { id: 'e', type: 'end' }], edges: [{ id: 'to\u202eend', from: 's', to: 'e' }] },
    })
    expect(edge.status).toBe(422)
    expect((await t.api('GET', '/api/workspaces')).body.workspaces.map((w: { name: string }) => w.name)).toEqual(['Their workspace', 'Default'])
    expect((await t.api('GET', `/api/agents/${ours.agent}`)).body.agent.name).toBe('Caller')
  })

  test('ordinary names, accents and scripts included, are kept', async () => {
    const r = await t.api('PATCH', `/api/phone-numbers/${ours.number}`, { body: { label: 'Réception – 東京 (main)' } })
    expect(r.status).toBe(200)
    expect(r.body.phoneNumber.label).toBe('Réception – 東京 (main)')
  })
})

describe('answers outside the API routes', () => {
  test("the carrier voice hook's 403 is the JSON error body", async () => {
    const res = await fetch(`${t.url}/carrier/twilio/voice?To=%2B14155550181`)
    expect(res.status).toBe(403)
    expect(res.headers.get('content-type')).toContain('application/json')
    expect(((await res.json()) as { error: unknown }).error).toMatchObject({ code: 'forbidden', requestId: res.headers.get('x-request-id') })
  })
})

// Last: it blocks this test process's address for the rest of the file.
describe('failed authentication', () => {
  test('is limited per source address: after the burst, bad keys and then every key get 429 with Retry-After', async () => {
    const statuses: number[] = []
    for (let i = 0; i < 8; i++) statuses.push((await t.api('GET', '/api/workspaces', { key: `vak_${'x'.repeat(43)}` })).status)
    expect(statuses).toEqual([401, 401, 401, 401, 401, 429, 429, 429])
    const blocked = await t.api('GET', '/api/workspaces', { key: null })
    expect(blocked.status).toBe(429)
    expect(blocked.body.error.code).toBe('rate_limited')
    expect(Number(blocked.headers.get('retry-after'))).toBeGreaterThanOrEqual(1)
    // a correct key from the same address waits too: guessing cannot be told apart by the answer
    expect((await t.api('GET', '/api/workspaces')).status).toBe(429)
    expect((await fetch(`${t.url}/health`)).status).toBe(200)
  })
})
