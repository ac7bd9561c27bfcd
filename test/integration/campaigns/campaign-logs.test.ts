// A campaign's state changes in the log: one line each for start, pause, resume, cancel and
// completion, from the node that made it, written only once its transaction committed (checked
// by reading the job through a second SQLite connection, which sees committed data only, at the
// moment the line is written), with the job's id, workspace, name, new status and counters.
import { Database } from 'bun:sqlite'
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { startTestAppliance, type TestAppliance } from '../../helpers/appliance.ts'
import { startCallees } from '../../helpers/campaign-callees.ts'
import { campaignTarget, waitForJob } from '../../helpers/jobs.ts'
import { until } from '../../helpers/until.ts'

interface Line {
  level: number
  msg: string
  jobId?: string
  status?: string
  [k: string]: unknown
}

let t: TestAppliance
const lines: Line[] = []
/** The job's status and completed_at as committed, read when its line was written (SQLite only). */
const committed = new Map<Line, { status: string; completed_at: string | null } | null>()
let reader: Database | undefined

beforeAll(async () => {
  t = await startTestAppliance({ LOG_LEVEL: 'info' }, undefined, {
    write(chunk) {
      for (const text of chunk.split('\n')) {
        if (text === '') continue
        const line = JSON.parse(text) as Line
        lines.push(line)
        if (reader && line.jobId && line.msg.startsWith('campaign ')) {
          committed.set(line, reader.query('select status, completed_at from outbound_jobs where id = ?').get(line.jobId) as { status: string; completed_at: string | null } | null)
        }
      }
    },
  })
  if (t.appliance.database.kind === 'sqlite') reader = new Database(t.appliance.database.sqlite.filename, { readonly: true })
})
afterAll(async () => {
  reader?.close()
  await t?.stop()
})

const ALWAYS = { start: '00:00', end: '24:00' }
const jobLines = (id: string) => lines.filter((l) => l.jobId === id && l.msg.startsWith('campaign '))

/** Each line's status was already committed when it was written. */
function expectCommitted(id: string) {
  if (!reader) return // PostgreSQL: no second connection here to look through
  for (const line of jobLines(id)) expect(committed.get(line)?.status, line.msg).toBe(line.status as string)
}

describe('campaign state changes in the log', () => {
  test('pause, resume and cancel of a scheduled job: one info line each, after the commit, with the counters; a refused action logs nothing', async () => {
    const x = await campaignTarget(t, 9) // nothing is dialled: the start is an hour away
    const startAt = new Date(Date.now() + 3_600_000).toISOString()
    const contacts = [{ to: '+14155550101' }, { to: '+14155550102' }, { to: '+14155550103' }]
    const r = await t.api('POST', '/api/outbound/jobs', { body: { name: 'Spring reminders', agentId: x.agentId, phoneNumberId: x.numberId, contacts, settings: { scheduling: { startAt }, callingWindow: ALWAYS } } })
    expect(r.status, JSON.stringify(r.body)).toBe(200)
    const id = r.body.job.id as string
    for (const action of ['pause', 'resume', 'cancel']) expect((await t.api('POST', `/api/outbound/jobs/${id}/${action}`)).status).toBe(200)
    expect((await t.api('POST', `/api/outbound/jobs/${id}/resume`)).status).toBe(409)
    await until(() => jobLines(id).length >= 3, 20_000)
    const base = { level: 30, jobId: id, workspaceId: t.workspaceId, name: 'Spring reminders', component: 'campaigns', totalContacts: 3 }
    expect(jobLines(id)).toEqual([
      expect.objectContaining({ ...base, msg: 'campaign paused', status: 'paused', pendingContacts: 3 }),
      expect.objectContaining({ ...base, msg: 'campaign resumed', status: 'scheduled', pendingContacts: 3 }),
      // nothing was in progress: the cancel ended the job at once
      expect.objectContaining({ ...base, msg: 'campaign cancelled', status: 'cancelled', pendingContacts: 0, activeContacts: 0, cancelledContacts: 3, completedContacts: 0, failedContacts: 0, ended: true }),
    ])
    expectCommitted(id)
    if (reader) expect(committed.get(jobLines(id)[2]!)?.completed_at).not.toBeNull()
  })

  test('a job that starts at once is logged as started by the API, and as completed with its counters', async () => {
    await t.api('POST', `/api/workspaces/${t.workspaceId}/do-not-call`, { body: { numbers: ['+14155550150', '+14155550151'] } })
    const x = await campaignTarget(t, 9) // every contact is on the do-not-call list: nothing is dialled
    const r = await t.api('POST', '/api/outbound/jobs', { body: { name: 'All listed', agentId: x.agentId, phoneNumberId: x.numberId, contacts: [{ to: '+14155550150' }, { to: '+14155550151' }], settings: { callingWindow: ALWAYS } } })
    expect(r.body.job.status).toBe('in_progress')
    const id = r.body.job.id as string
    await waitForJob(t, id, (j) => j.status === 'completed')
    await until(() => jobLines(id).length >= 2, 20_000)
    expect(jobLines(id)).toEqual([
      expect.objectContaining({ level: 30, msg: 'campaign started', status: 'in_progress', jobId: id, workspaceId: t.workspaceId, name: 'All listed', totalContacts: 2, suppressedContacts: 2 }),
      expect.objectContaining({ level: 30, msg: 'campaign completed', status: 'completed', jobId: id, totalContacts: 2, completedContacts: 0, failedContacts: 0, suppressedContacts: 2, ended: true }),
    ])
    expectCommitted(id)
  })

  test('against SIPp: a scheduled start is logged by the dispatcher, and the last call ending logs the completion once with the counters', async () => {
    const callees = await startCallees(2, 60)
    const x = await campaignTarget(t, callees.port, { greeting: 'Hello.', goodbye: 'Goodbye.' })
    // one callee answers (K=1), one is busy (K=2)
    const contacts = [{ to: '+14155550110' }, { to: '+14155550210' }]
    const startAt = new Date(Date.now() + 1500).toISOString()
    const r = await t.api('POST', '/api/outbound/jobs', { body: { name: 'SIPp run', agentId: x.agentId, phoneNumberId: x.numberId, contacts, settings: { scheduling: { startAt }, callingWindow: ALWAYS, maxConcurrent: 2 } } })
    expect(r.body.job.status).toBe('scheduled')
    const id = r.body.job.id as string
    await waitForJob(t, id, (j) => j.status === 'completed', 45_000)
    await until(() => jobLines(id).some((l) => l.msg === 'campaign completed'), 20_000)
    expect(jobLines(id)).toEqual([
      expect.objectContaining({ level: 30, msg: 'campaign started', status: 'in_progress', jobId: id, workspaceId: t.workspaceId, name: 'SIPp run', totalContacts: 2 }),
      expect.objectContaining({ level: 30, msg: 'campaign completed', status: 'completed', jobId: id, totalContacts: 2, completedContacts: 1, failedContacts: 1, activeContacts: 0, ended: true }),
    ])
    expectCommitted(id)
    expect((await callees.proc.exited).code).toBe(0)
  }, 60_000)
  test('against SIPp: a cancel while a call is in progress is logged at once, and the job\'s end when that call ended', async () => {
    const callees = await startCallees(1, 60)
    const x = await campaignTarget(t, callees.port, { greeting: 'Hello, this is a reminder about your appointment tomorrow.', goodbye: 'Goodbye.' })
    const r = await t.api('POST', '/api/outbound/jobs', { body: { name: 'Cut short', agentId: x.agentId, phoneNumberId: x.numberId, contacts: [{ to: '+14155550120' }, { to: '+14155550121' }], settings: { callingWindow: ALWAYS, maxConcurrent: 1 } } })
    const id = r.body.job.id as string
    await waitForJob(t, id, (j) => j.activeContacts === 1, 20_000)
    expect((await t.api('POST', `/api/outbound/jobs/${id}/cancel`)).body.job).toMatchObject({ status: 'cancelled', activeContacts: 1 })
    await waitForJob(t, id, (j) => j.completedAt !== undefined, 45_000)
    await until(() => jobLines(id).some((l) => l.msg === 'campaign ended'), 20_000)
    expect(jobLines(id)).toEqual([
      expect.objectContaining({ msg: 'campaign started', status: 'in_progress', jobId: id, totalContacts: 2 }),
      expect.objectContaining({ level: 30, msg: 'campaign cancelled', status: 'cancelled', jobId: id, name: 'Cut short', activeContacts: 1, cancelledContacts: 1, ended: false }),
      expect.objectContaining({ level: 30, msg: 'campaign ended', status: 'cancelled', jobId: id, activeContacts: 0, completedContacts: 1, cancelledContacts: 1, ended: true }),
    ])
    expectCommitted(id)
    if (reader) expect(committed.get(jobLines(id)[1]!)?.completed_at).toBeNull()
    expect((await callees.proc.exited).code).toBe(0)
  }, 60_000)
})
