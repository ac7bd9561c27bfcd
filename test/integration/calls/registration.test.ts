// Numbers with sipRegister: the running appliance registers them with their trunk (a SIPp
// registrar that challenges), keeps the binding fresh, removes it when the number goes, and
// marks the number when its registrar cannot be reached.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { join } from 'node:path'
import { startTestAppliance, type TestAppliance } from '../../helpers/appliance.ts'
import { freePort, sipp } from '../../helpers/sipp.ts'
import { until } from '../../helpers/until.ts'

const FIXTURES = join(import.meta.dir, '../../fixtures/sip')
let t: TestAppliance

beforeAll(async () => {
  // the SIPp registrar grants 1 s, so the refresh comes after half a second
  t = await startTestAppliance({ SIP_REGISTER_SYNC_MS: 100, SIP_REGISTER_EXPIRES_SEC: 3600 })
  await t.api('POST', `/api/workspaces/${t.workspaceId}/payment-methods`, { body: { provider: 'manual', reference: 'test' } })
})

/** Polls the number (politely: the API rate-limits a key) until `done` holds. */
async function pollNumber(id: string, done: (n: any) => boolean): Promise<any> {
  const end = Date.now() + 10_000
  for (;;) {
    const n = (await t.api('GET', `/api/phone-numbers/${id}`)).body.phoneNumber
    if (done(n) || Date.now() > end) return n
    await Bun.sleep(25)
  }
}

afterAll(async () => {
  await t?.stop()
})

test('a number with sipRegister is registered with its trunk after a digest challenge, refreshed, and unregistered when released', async () => {
  const port = await freePort()
  const registrar = sipp(['-sf', join(FIXTURES, 'registrar.xml'), '-i', '127.0.0.1', '-p', String(port), '-m', '1'], 20)
  const created = await t.api('POST', '/api/phone-numbers', {
    body: { e164: '+14155550142', sipTerminationUri: `sip:127.0.0.1:${port}`, sipOutboundTransport: 'udp', sipUsername: 'trunkuser', sipPassword: 's3cret', sipRegister: true },
  })
  expect(created.status, JSON.stringify(created.body)).toBe(200)
  expect(created.body.phoneNumber.sipRegister).toBe(true)
  // SIPp's registrar ends its scenario only after the refresh and the Expires: 0; releasing the
  // number is what asks for the latter, so wait for the refresh first
  const id = created.body.phoneNumber.id
  const granted = () => t.appliance.registrations.bindings().find((b) => b.numberId === id)?.registered ?? 0
  await until(() => granted() >= 2, 10_000, 'the registration and its refresh')
  expect((await t.api('DELETE', `/api/phone-numbers/${id}`)).status).toBe(200)
  const run = await registrar.exited
  expect(run.code, run.stderr + run.stdout.slice(-1500)).toBe(0)
}, 30_000)

test('a registrar that cannot be reached puts the number in status error with the reason; fixing the settings clears it', async () => {
  const closed = await freePort()
  const created = await t.api('POST', '/api/phone-numbers', {
    body: { e164: '+14155550143', sipTerminationUri: `sip:127.0.0.1:${closed}`, sipOutboundTransport: 'tcp', sipRegister: true },
  })
  expect(created.status).toBe(200)
  const id = created.body.phoneNumber.id
  const number = await pollNumber(id, (n) => n.status === 'error')
  expect(number.status).toBe('error')
  expect(number.statusReason).toMatch(/^registration failed/)
  const fixed = await t.api('PATCH', `/api/phone-numbers/${id}`, { body: { sipRegister: false } })
  expect(fixed.status, JSON.stringify(fixed.body)).toBe(200)
  expect(fixed.body.phoneNumber).toMatchObject({ status: 'unconfigured', statusReason: null, sipRegister: false })
}, 30_000)
