// Dial-time trunk rules on a running appliance: a number whose trunk points at a metadata address
// or carries maddr (stored before the save-time rule existed) fails its call with a clear reason
// and no INVITE leaves; a real UDP socket where maddr points stays silent.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { startTestAppliance, type TestAppliance } from '../../helpers/appliance.ts'
import { setupCallTarget, type CallSetup } from '../../helpers/calls.ts'
import { startUdpSink, type UdpSink } from '../../helpers/udp-sink.ts'

let t: TestAppliance
let target: CallSetup
let sink: UdpSink

beforeAll(async () => {
  sink = await startUdpSink()
  t = await startTestAppliance({ LLM_PROVIDER: 'none' })
  target = await setupCallTarget(t, { trunkUri: `sip:127.0.0.1:${sink.port}`, direction: 'outbound' })
})

afterAll(async () => {
  await t?.stop()
  sink?.close()
})

/** A trunk as a database from before the save-time rule may hold it. */
const storeTrunk = (uri: string) =>
  t.appliance.database.db.updateTable('phone_numbers').set({ sip_termination_uri: uri }).where('id', '=', target.numberId).execute()

describe('dialling through a refused trunk', () => {
  test.each([
    ['sip:169.254.169.254:80;transport=tcp', '169.254.169.254, a metadata address'],
    ['sip:[fe80::1]:5060', 'fe80::1, a link-local address'],
    [`sip:127.0.0.1:PORT;maddr=127.0.0.1`, 'must not carry a maddr parameter'],
  ])('a call through %s fails with the reason, is recorded as failed, and sends nothing', async (uri, reason) => {
    await storeTrunk(uri.replace('PORT', String(sink.port)))
    const placed = await t.api('POST', '/api/calls', { body: { phoneNumberId: target.numberId, to: '+14155550199' } })
    expect(placed.status).toBe(422)
    expect(placed.body.error.details.fields).toEqual([{ path: 'phoneNumberId', message: expect.stringContaining(reason) }])
    const calls = (await t.api('GET', '/api/calls?limit=1')).body.calls as any[]
    expect(calls[0]).toMatchObject({ phoneNumberId: target.numberId, status: 'ended', outcome: 'failed', endReason: expect.stringContaining(reason) })
    expect(sink.received).toEqual([])
  })
})
