// Real SIP peers (SIPp) call numbers of a running appliance: the number directory in the
// database decides, the call runs with media and a voice session, and the call row records it.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { statSync } from 'node:fs'
import { join } from 'node:path'
import { startTestAppliance, type TestAppliance } from '../../helpers/appliance.ts'
import { setupCallTarget, waitForCall, type CallSetup } from '../../helpers/calls.ts'
import { freePort, sipp } from '../../helpers/sipp.ts'
import { startFakeOpenAi, type FakeOpenAi } from '../../fakes/openai.ts'

let t: TestAppliance
let llm: FakeOpenAi
let target: CallSetup

beforeAll(async () => {
  llm = startFakeOpenAi()
  t = await startTestAppliance({ LLM_PROVIDER: 'openai', LLM_BASE_URL: llm.url, LLM_API_KEY: 'test' })
  target = await setupCallTarget(t, { agent: { welcome: { mode: 'user_speaks_first' } } })
})

afterAll(async () => {
  await t?.stop()
  llm?.stop()
})

const calls = async () => (await t.api('GET', '/api/calls?limit=100')).body.calls as any[]

describe('inbound calls on a running appliance', () => {
  for (const transport of ['u1', 't1'] as const) {
    test(`SIPp's uac calling a connected number over ${transport === 'u1' ? 'UDP' : 'TCP'} is answered and torn down, and the call is recorded`, async () => {
      const port = transport === 'u1' ? t.appliance.sip.udp : t.appliance.sip.tcp
      const before = new Set((await calls()).map((c) => c.id))
      const run = await sipp(['-sn', 'uac', `127.0.0.1:${port}`, '-s', target.e164.slice(1), '-m', '1', '-d', '1000', '-t', transport, '-i', '127.0.0.1', '-p', String(await freePort())]).exited
      expect(run.code, run.stderr + run.stdout.slice(-1500)).toBe(0)
      const call = await waitForCall(t, (c) => !before.has(c.id) && c.status === 'ended')
      expect(call).toMatchObject({
        type: 'inbound',
        to: target.e164,
        from: expect.any(String),
        agentId: target.agentId,
        agentName: 'Reception',
        phoneNumberId: target.numberId,
        outcome: 'completed',
        endReason: 'caller_hangup',
      })
      expect(call.answeredAt).not.toBeNull()
      expect(call.duration).toBeGreaterThanOrEqual(1)
      expect(call.metrics).toMatchObject({ ttsProvider: 'flite', model: expect.any(String) })
      expect(call.cost.total).toBeGreaterThanOrEqual(call.cost.telephony)
      expect(call.recordingUrl).toBe(`${t.url}/api/calls/${call.id}/recording`)
      const wav = await fetch(`${t.url}/api/calls/${call.id}/recording`, { headers: { authorization: `Bearer ${t.adminKey}` } })
      expect(wav.status).toBe(200)
      expect(wav.headers.get('content-type')).toBe('audio/wav')
      expect((await wav.arrayBuffer()).byteLength).toBeGreaterThan(44)
      // readable by the appliance's user only
      expect(statSync(join(t.dataDir, 'recordings', `${call.id}.wav`)).mode & 0o777).toBe(0o600)
    })
  }

  test('a caller puts a live call on hold and off hold by re-INVITE (recvonly, then sendrecv answered) and the call goes on', async () => {
    const before = new Set((await calls()).map((c) => c.id))
    const run = await sipp(['-sf', join(import.meta.dir, '../../fixtures/sip/uac-hold.xml'), `127.0.0.1:${t.appliance.sip.udp}`, '-s', target.e164.slice(1), '-m', '1', '-i', '127.0.0.1', '-p', String(await freePort())]).exited
    expect(run.code, run.stderr + run.stdout.slice(-1500)).toBe(0)
    const call = await waitForCall(t, (c) => !before.has(c.id) && c.status === 'ended')
    expect(call).toMatchObject({ outcome: 'completed', endReason: 'caller_hangup' })
  })

  test('an unknown number is refused and nothing is created', async () => {
    const before = (await calls()).length
    const run = await sipp(['-sn', 'uac', `127.0.0.1:${t.appliance.sip.udp}`, '-s', '15559990000', '-m', '1', '-i', '127.0.0.1', '-p', String(await freePort())]).exited
    expect(run.code).not.toBe(0)
    expect(run.stderr).toMatch(/received 'SIP\/2\.0 (401|403)/)
    expect((await calls()).length).toBe(before)
  })

  test("a number called from an address that is not its trunk is refused like an unknown one, and nothing is created", async () => {
    const foreign = await setupCallTarget(t, { trunkUri: 'sip:192.0.2.10:5060' })
    const before = (await calls()).length
    const run = await sipp(['-sn', 'uac', `127.0.0.1:${t.appliance.sip.udp}`, '-s', foreign.e164.slice(1), '-m', '1', '-i', '127.0.0.1', '-p', String(await freePort())]).exited
    expect(run.code).not.toBe(0)
    expect(run.stderr).toMatch(/received 'SIP\/2\.0 (401|403)/)
    expect((await calls()).length).toBe(before)
  })

  test('the calls list pages newest first and a call of another workspace is 404', async () => {
    const page = await t.api('GET', '/api/calls?limit=1')
    expect(page.status).toBe(200)
    expect(page.body.calls.length).toBe(1)
    expect(page.body.nextCursor).toEqual(expect.any(String))
    const other = await t.api('POST', '/api/workspaces', { body: { name: 'Other' } })
    expect(other.status).toBe(200)
    const missing = await t.api('GET', '/api/calls/call_doesnotexist')
    expect(missing.status).toBe(404)
    expect(missing.body.error.code).toBe('not_found')
  })
})
