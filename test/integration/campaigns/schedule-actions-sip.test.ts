// Time and control of a running campaign against SIPp callees: a scheduled start in a non-UTC
// zone, pause (no new INVITE after it), resume and cancel; and a machine greeting answered by
// the job's voicemail message after the beep.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { DateTime } from 'luxon'
import { startTestAppliance, type TestAppliance } from '../../helpers/appliance.ts'
import { invitesByNumber, readMessages, startCallees } from '../../helpers/campaign-callees.ts'
import { setupCallTarget } from '../../helpers/calls.ts'
import { campaignTarget, waitForJob } from '../../helpers/jobs.ts'
import { readStereoWav } from '../../helpers/media-call.ts'
import { loudWindows } from '../../helpers/speech.ts'

let t: TestAppliance

beforeAll(async () => {
  t = await startTestAppliance({ BARGE_IN_MAX_BACKCHANNEL_MS: 60_000, BARGE_IN_MIN_SPEECH_MS: 60_000 })
})
afterAll(async () => {
  await t?.stop()
})

const ALWAYS = { start: '00:00', end: '24:00' }
const target = (port: number) => campaignTarget(t, port, { greeting: 'Hello {{name}}, this is a reminder.', goodbye: 'Goodbye.' })

describe('campaign timing and control', () => {
  test('a startAt 3 s ahead in Asia/Tokyo keeps the job scheduled, then it starts and completes', async () => {
    const callees = await startCallees(2, 30)
    const x = await target(callees.port)
    const startAt = DateTime.now().setZone('Asia/Tokyo').plus({ seconds: 3 })
    const r = await t.api('POST', '/api/outbound/jobs', {
      body: {
        agentId: x.agentId, phoneNumberId: x.numberId,
        contacts: [{ to: '+14155550200' }, { to: '+14155550201' }],
        // local Tokyo wall-clock time without an offset: read in the job's zone
        settings: { scheduling: { startAt: startAt.toFormat("yyyy-LL-dd'T'HH:mm:ss.SSS"), timezone: 'Asia/Tokyo' }, callingWindow: ALWAYS, maxConcurrent: 2 },
      },
    })
    expect(r.status, JSON.stringify(r.body)).toBe(200)
    expect(r.body.job).toMatchObject({ status: 'scheduled', totalContacts: 2, completedContacts: 0, failedContacts: 0 })
    expect((await t.api('GET', `/api/outbound/jobs/${r.body.job.id}`)).body.job.status).toBe('scheduled')
    const started = await waitForJob(t, r.body.job.id, (j) => j.status !== 'scheduled', 6000)
    expect(Date.parse(started.startedAt)).toBeGreaterThanOrEqual(startAt.toMillis())
    expect(Date.parse(started.startedAt) - startAt.toMillis()).toBeLessThan(1000)
    const done = await waitForJob(t, r.body.job.id, (j) => j.status === 'completed', 20_000)
    expect(done).toMatchObject({ completedContacts: 0, failedContacts: 2, progress: { busy: 2 } })
    expect((await callees.proc.exited).code).toBe(0)
    const first = Math.min(...readMessages(callees.messageFile).filter((m) => m.received && m.firstLine.startsWith('INVITE')).map((m) => m.timeMs))
    expect(first).toBeGreaterThanOrEqual(startAt.toMillis() - 5) // SIPp's clock has microseconds, ours milliseconds
  }, 40_000)

  test('pause stops new dials at once, resume continues, cancel ends the job with the documented counters', async () => {
    const callees = await startCallees(10, 60)
    const x = await target(callees.port)
    const contacts = Array.from({ length: 12 }, (_, i) => ({ to: `+14155550${100 + i}`, dynamicVariables: { name: `P${i}` } }))
    const r = await t.api('POST', '/api/outbound/jobs', {
      body: { agentId: x.agentId, phoneNumberId: x.numberId, contacts, settings: { maxConcurrent: 2, callingWindow: ALWAYS } },
    })
    const id = r.body.job.id
    await waitForJob(t, id, (j) => j.activeContacts === 2)
    const paused = await t.api('POST', `/api/outbound/jobs/${id}/pause`)
    expect(paused.body.job.status).toBe('paused')
    const pausedAt = Date.now()
    // the calls in progress finish; nothing new is dialled while paused
    const idle = await waitForJob(t, id, (j) => j.activeContacts === 0, 15_000)
    expect(idle).toMatchObject({ status: 'paused', pendingContacts: 10, progress: { answered: 2 } })
    const resumedAt = Date.now() // dialling may start before the response arrives
    const resumed = await t.api('POST', `/api/outbound/jobs/${id}/resume`)
    expect(resumed.body.job.status).toBe('in_progress')
    await waitForJob(t, id, (j) => j.progress.answered >= 4 && j.activeContacts === 2, 20_000)
    const cancelled = await t.api('POST', `/api/outbound/jobs/${id}/cancel`)
    expect(cancelled.body.job).toMatchObject({ status: 'cancelled', pendingContacts: 0, activeContacts: 2 })
    expect(cancelled.body.job.completedAt).toBeUndefined()
    const end = await waitForJob(t, id, (j) => j.activeContacts === 0 && j.completedAt !== undefined, 15_000)
    // documented: answered + cancelled = total; the two in flight at cancel finished as answered
    expect(end).toMatchObject({ status: 'cancelled', totalContacts: 12, completedContacts: 6, failedContacts: 0, cancelledContacts: 6, progress: { answered: 6 } })

    callees.proc.kill()
    await callees.proc.exited
    const invites = readMessages(callees.messageFile).filter((m) => m.received && m.firstLine.startsWith('INVITE '))
    expect(invites).toHaveLength(6)
    expect(invites.filter((m) => m.timeMs > pausedAt && m.timeMs < resumedAt)).toEqual([])
    expect([...invitesByNumber(invites).keys()].sort()).toEqual(contacts.slice(0, 6).map((c) => c.to))
  }, 60_000)

  test('a machine answering gets the voicemail message after its beep, and counts as voicemail', async () => {
    const callees = await startCallees(1, 40)
    const x = await target(callees.port)
    const r = await t.api('POST', '/api/outbound/jobs', {
      body: {
        agentId: x.agentId, phoneNumberId: x.numberId,
        contacts: [{ to: '+14155550400', dynamicVariables: { name: 'Ann' } }],
        settings: { callingWindow: ALWAYS, answeringMachineDetection: { enabled: true, action: 'voicemail', voicemailMessage: 'Hi {{name}}, please call us back at your convenience. Thank you.' } },
      },
    })
    const done = await waitForJob(t, r.body.job.id, (j) => j.status === 'completed', 30_000)
    expect(done).toMatchObject({ completedContacts: 1, progress: { voicemail: 1 } })
    const [contact] = (await t.api('GET', `/api/outbound/jobs/${r.body.job.id}/contacts`)).body.contacts
    const call = (await t.api('GET', `/api/calls/${contact.callIds[0]}`)).body.call
    expect(call).toMatchObject({ status: 'ended', transcript: [] })
    const row = t.appliance.database.sqlite.query('select answered_by from calls where id = ?').get(call.id) as { answered_by: string }
    expect(row.answered_by).toBe('machine')
    // our side of the recording: silent while the greeting and beep play, then the message
    const { right } = readStereoWav(`${t.dataDir}/recordings/${call.id}.wav`)
    const windows = 1600 // 100 ms at 16 kHz
    const firstLoud = Array.from({ length: Math.floor(right.length / windows) }, (_, i) => loudWindows(right.subarray(i * windows, (i + 1) * windows), windows, -35)).findIndex((n) => n > 0)
    expect(firstLoud * 100).toBeGreaterThan(7000) // the greeting (about 7 s) and its beep come first
    expect(loudWindows(right, windows, -35)).toBeGreaterThan(20) // a few seconds of message
    expect((await callees.proc.exited).code).toBe(0)
  }, 45_000)

  test('a callee who asks not to be called again (workflow tool node opt_out) lands on the do-not-call list', async () => {
    const callees = await startCallees(1, 30)
    const x = await setupCallTarget(t, { trunkUri: `sip:127.0.0.1:${callees.port}`, direction: 'outbound', agent: { enabledTools: ['opt_out'] } })
    const graph = {
      nodes: [
        { id: 'start', type: 'start', config: { text: 'Hello.' } },
        { id: 'remove', type: 'tool', config: { tool: 'opt_out' } },
        { id: 'bye', type: 'end', config: { text: 'You will not be called again. Goodbye.' } },
      ],
      edges: [{ from: 'start', to: 'remove' }, { from: 'remove', to: 'bye' }],
    }
    const put = await t.api('PUT', `/api/agents/${x.agentId}/workflow`, { body: graph })
    expect(put.status, JSON.stringify(put.body)).toBe(200)
    const r = await t.api('POST', '/api/outbound/jobs', { body: { agentId: x.agentId, phoneNumberId: x.numberId, contacts: [{ to: '+14155550177' }], settings: { callingWindow: ALWAYS } } })
    await waitForJob(t, r.body.job.id, (j) => j.status === 'completed', 20_000)
    const listed = (await t.api('GET', `/api/workspaces/${t.workspaceId}/do-not-call?number=%2B14155550177`)).body.numbers
    expect(listed).toEqual([{ number: '+14155550177', reason: expect.any(String), source: 'opt_out', createdAt: expect.any(String) }])
    expect((await callees.proc.exited).code).toBe(0)
  }, 30_000)
})
