// A campaign against real SIPp callees on 127.0.0.1: people, busy lines, phones that ring on,
// and answering machines with a beep. SIPp's own message log is the witness for concurrency and
// attempts; the API's counters must agree with it and with the contacts.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { RecordedEvents } from '../../../src/features/campaigns/index.ts'
import { startTestAppliance, type TestAppliance } from '../../helpers/appliance.ts'
import { invitesByNumber, maxSimultaneous, readMessages, startCallees } from '../../helpers/campaign-callees.ts'
import { campaignTarget, waitForJob } from '../../helpers/jobs.ts'

let t: TestAppliance
const events = new RecordedEvents()

beforeAll(async () => {
  t = await startTestAppliance({ BARGE_IN_MAX_BACKCHANNEL_MS: 60_000, BARGE_IN_MIN_SPEECH_MS: 60_000 }, undefined, undefined, { campaignEvents: events })
})
afterAll(async () => {
  await t?.stop()
})

const ALWAYS = { start: '00:00', end: '24:00' }

describe('a campaign against SIPp callees', () => {
  test('30 contacts, maxConcurrent 3, retryAttempts 2: completed with exact counters; SIPp saw at most 3 calls at once and the right attempts', async () => {
    // kinds: 1 person x9, 2 busy x7, 3 never answers x7, 4 answering machine x7
    const kinds = [...Array(9).fill(1), ...Array(7).fill(2), ...Array(7).fill(3), ...Array(7).fill(4)] as number[]
    const contacts = kinds.map((k, i) => ({ to: `+14155550${k}${String(i).padStart(2, '0')}`, dynamicVariables: { name: `Person ${i}` } }))
    const attemptsOf = (k: number) => (k === 2 || k === 3 ? 3 : 1)
    const totalCalls = kinds.reduce((n, k) => n + attemptsOf(k), 0)
    const callees = await startCallees(totalCalls, 150)
    const target = await campaignTarget(t, callees.port)

    const created = await t.api('POST', '/api/outbound/jobs', {
      body: {
        agentId: target.agentId,
        phoneNumberId: target.numberId,
        name: 'SIPp campaign',
        contacts,
        settings: { maxConcurrent: 3, retryAttempts: 2, retryDelayMs: 0, ringTimeoutMs: 1000, callingWindow: ALWAYS, answeringMachineDetection: { enabled: true, action: 'hangup' } },
      },
    })
    expect(created.status, JSON.stringify(created.body)).toBe(200)
    expect(created.body.job).toMatchObject({ status: 'in_progress', totalContacts: 30, completedContacts: 0, failedContacts: 0 })
    expect(created.body.warnings).toEqual([])
    const id = created.body.job.id

    // counters always add up while it runs
    const job = await waitForJob(t, id, (j) => {
      const p = j.progress
      expect(j.pendingContacts + j.activeContacts + p.answered + p.noAnswer + p.busy + p.voicemail + p.failed).toBe(30)
      expect(j.activeContacts).toBeLessThanOrEqual(3)
      return j.status === 'completed'
    }, 120_000)
    expect(job).toMatchObject({
      totalContacts: 30, completedContacts: 16, failedContacts: 14, pendingContacts: 0, activeContacts: 0,
      progress: { answered: 9, noAnswer: 7, busy: 7, voicemail: 7, failed: 0 },
    })
    expect(job.completedAt).toBeString()

    const run = await callees.proc.exited
    expect(run.code, run.stderr + run.stdout.slice(-2000)).toBe(0)
    const messages = readMessages(callees.messageFile)
    expect(maxSimultaneous(messages)).toBeLessThanOrEqual(3)
    expect(maxSimultaneous(messages)).toBeGreaterThanOrEqual(2)
    const invites = invitesByNumber(messages)
    for (const [i, k] of kinds.entries()) expect([contacts[i]!.to, invites.get(contacts[i]!.to)]).toEqual([contacts[i]!.to, attemptsOf(k)])

    // per-contact records agree with SIPp, and each call links back to the job and contact
    const page = await t.api('GET', `/api/outbound/jobs/${id}/contacts?limit=100`)
    expect(page.status, JSON.stringify(page.body)).toBe(200)
    const listed = page.body.contacts as any[]
    expect(listed.map((c) => [c.to, c.attempts, c.callIds.length])).toEqual(contacts.map((c, i) => [c.to, attemptsOf(kinds[i]!), attemptsOf(kinds[i]!)]))
    const outcome = { 1: 'answered', 2: 'busy', 3: 'no_answer', 4: 'voicemail' } as Record<number, string>
    expect(listed.map((c) => c.lastOutcome)).toEqual(kinds.map((k) => outcome[k]))
    const machineCall = (await t.api('GET', `/api/calls/${listed[29].callIds[0]}`)).body.call
    expect(machineCall).toMatchObject({ to: contacts[29]!.to, status: 'ended', outboundJobId: id, outboundContactId: listed[29].id })
    const personCall = (await t.api('GET', `/api/calls/${listed[0].callIds[0]}`)).body.call
    expect(personCall.transcript.map((x: any) => x.text)).toEqual(['Hello Person 0.', 'Bye.'])
    const rows = t.appliance.database.sqlite.query('select answered_by, count(*) n from calls where outbound_job_id = ? and answered_at is not null group by answered_by order by answered_by').all(id)
    expect(rows).toEqual([{ answered_by: 'human', n: 9 }, { answered_by: 'machine', n: 7 }])

    // one call.completed per attempt, between job.started and job.completed
    const types = events.events.filter((e) => e.jobId === id).map((e) => e.type)
    expect(types[0]).toBe('job.started')
    expect(types.at(-1)).toBe('job.completed')
    expect(types.filter((x) => x === 'call.completed')).toHaveLength(totalCalls)
  }, 150_000)
})
