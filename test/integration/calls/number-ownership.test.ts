// A number takes inbound calls in one workspace at a time. Two workspaces through the HTTP API,
// real SIP callers (SIPp): the second workspace cannot take the first one's number, and its
// credentials never route the first one's calls.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { join } from 'node:path'
import { type Api, apiClient, startTestAppliance, type TestAppliance } from '../../helpers/appliance.ts'
import { setupCallTarget, waitForCall, type CallSetup } from '../../helpers/calls.ts'
import { freePort, sipp } from '../../helpers/sipp.ts'

const FIXTURES = join(import.meta.dir, '../../fixtures/sip')
const E164 = '+14155550150'
let t: TestAppliance
let a: CallSetup
let b: Api

beforeAll(async () => {
  // MD5 only: SIPp answers MD5 challenges, not SHA-256 ones
  t = await startTestAppliance({ LLM_PROVIDER: 'none', SIP_DIGEST_ALGORITHMS: 'MD5' })
  a = await setupCallTarget(t, { e164: E164, trunkUri: 'sip:127.0.0.1:5999', agent: { welcome: { mode: 'user_speaks_first' } } })
  const ws = await t.api('POST', '/api/workspaces', { body: { name: 'Workspace B' } })
  b = apiClient(t.url, ws.body.apiKey.key)
  expect((await b('POST', `/api/workspaces/${ws.body.workspace.id}/payment-methods`, { body: { provider: 'manual', reference: 'b' } })).status).toBe(200)
})

afterAll(async () => {
  await t?.stop()
})

const callsOf = async (api: Api) => (await api('GET', '/api/calls?limit=100')).body.calls as any[]
const callFromTrunk = async () =>
  sipp(['-sn', 'uac', `127.0.0.1:${t.appliance.sip.udp}`, '-s', E164.slice(1), '-m', '1', '-d', '500', '-i', '127.0.0.1', '-p', String(await freePort())]).exited

describe('one workspace owns a number', () => {
  test("workspace A's trunk lands in A; B connecting the same e164 gets 409 number_in_use; A's trunk still lands in A", async () => {
    const first = await callFromTrunk()
    expect(first.code, first.stderr + first.stdout.slice(-1500)).toBe(0)
    await waitForCall(t, (c) => c.phoneNumberId === a.numberId && c.status === 'ended')

    const agent = await b('POST', '/api/agents', { body: { name: 'B reception', agentType: 'inbound' } })
    const taken = await b('POST', '/api/phone-numbers', {
      body: { e164: E164, provider: 'sip', sipTerminationUri: 'sip:127.0.0.2:5999', sipOutboundTransport: 'udp', sipUsername: 'b-user', sipPassword: 'b-secret' },
    })
    expect(taken.status).toBe(409)
    expect(taken.body.error.code).toBe('number_in_use')
    expect(agent.status).toBe(200)

    const before = (await callsOf(t.api)).length
    const again = await callFromTrunk()
    expect(again.code, again.stderr + again.stdout.slice(-1500)).toBe(0)
    const calls = await callsOf(t.api)
    expect(calls.length).toBe(before + 1)
    expect(calls[0]).toMatchObject({ phoneNumberId: a.numberId, agentId: a.agentId, to: E164 })
    expect(await callsOf(b)).toEqual([])
  })

  test("a caller answering the challenge with B's credentials does not reach A's number", async () => {
    const before = (await callsOf(t.api)).length
    const run = await sipp([
      '-sf', join(FIXTURES, 'uac-auth.xml'), `127.0.0.1:${t.appliance.sip.udp}`, '-s', E164.slice(1), '-au', 'b-user', '-ap', 'b-secret',
      '-m', '1', '-i', '127.0.0.2', '-p', String(await freePort()),
    ]).exited
    expect(run.code).not.toBe(0)
    expect(run.stderr).toMatch(/received 'SIP\/2\.0 403/)
    expect((await callsOf(t.api)).length).toBe(before)
    expect(await callsOf(b)).toEqual([])
  })

  test('releasing the number frees the e164 for another workspace', async () => {
    expect((await t.api('DELETE', `/api/phone-numbers/${a.numberId}`)).status).toBe(200)
    const connected = await b('POST', '/api/phone-numbers', { body: { e164: E164, provider: 'sip', sipTerminationUri: 'sip:127.0.0.2:5999', sipOutboundTransport: 'udp' } })
    expect(connected.status).toBe(200)
    expect(connected.body.phoneNumber).toMatchObject({ e164: E164, sipTerminationUri: 'sip:127.0.0.2:5999' })
  })
})
