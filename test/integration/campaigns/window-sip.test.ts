// A contact outside its calling window is not dialled until the window opens, end to end: the
// dispatcher's clock is set to 08:59:57 on a Monday in London, the window opens at 09:00.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { DateTime } from 'luxon'
import { startTestAppliance, type TestAppliance } from '../../helpers/appliance.ts'
import { readMessages, startCallees } from '../../helpers/campaign-callees.ts'
import { setupCallTarget } from '../../helpers/calls.ts'
import { waitForJob } from '../../helpers/jobs.ts'

let t: TestAppliance
const monday0859 = DateTime.now().setZone('Europe/London').plus({ weeks: 1 }).startOf('week').set({ hour: 8, minute: 59, second: 57, millisecond: 0 })
/** Set just before the job is created, so the dispatcher's clock then reads 08:59:57. */
let offset = 0

beforeAll(async () => {
  t = await startTestAppliance({}, undefined, undefined, { campaignClock: () => Date.now() + offset })
})
afterAll(async () => {
  await t?.stop()
})

test('a contact outside its window waits, and is dialled when the window opens', async () => {
  const callees = await startCallees(1, 20)
  const x = await setupCallTarget(t, { trunkUri: `sip:127.0.0.1:${callees.port}`, direction: 'outbound' })
  offset = monday0859.toMillis() - Date.now()
  const r = await t.api('POST', '/api/outbound/jobs', {
    body: {
      agentId: x.agentId, phoneNumberId: x.numberId,
      // SIPp answers +1 415 numbers; this contact's own zone puts its window in London
      contacts: [{ to: '+14155550230', timezone: 'Europe/London' }],
      settings: { scheduling: { timezone: 'Europe/London' }, callingWindow: { start: '09:00', end: '17:00', days: ['mon', 'tue', 'wed', 'thu', 'fri'] } },
    },
  })
  expect(r.status, JSON.stringify(r.body)).toBe(200)
  const opensAt = monday0859.set({ hour: 9, minute: 0, second: 0 })
  // the dispatcher looks at it at once and moves it to the window's opening
  const deadline = Date.now() + 10_000
  let waiting: any
  do {
    waiting = (await t.api('GET', `/api/outbound/jobs/${r.body.job.id}/contacts`)).body.contacts[0]
    if (waiting.nextAttemptAt === opensAt.toUTC().toISO()) break
    await Bun.sleep(20)
  } while (Date.now() < deadline)
  expect(waiting).toMatchObject({ status: 'pending', attempts: 0, nextAttemptAt: opensAt.toUTC().toISO() })
  const done = await waitForJob(t, r.body.job.id, (j) => j.status === 'completed', 25_000)
  expect(done.progress.busy).toBe(1)
  expect((await callees.proc.exited).code).toBe(0)
  const [invite] = readMessages(callees.messageFile).filter((m) => m.received && m.firstLine.startsWith('INVITE '))
  // not before the dispatcher's clock reached 09:00 London (SIPp logs microseconds, we compare ms)
  expect(invite!.timeMs).toBeGreaterThanOrEqual(opensAt.toMillis() - offset - 2)
  // dialled when the window opened, not at a later look of the dispatcher (generous for a busy machine)
  expect(invite!.timeMs - (opensAt.toMillis() - offset)).toBeLessThan(10_000)
}, 60_000)
