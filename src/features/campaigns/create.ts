// Creating a job from contacts prepared off the event loop (upload/): the agent, the number and
// the settings checked, naming each offending field, the do-not-call list applied. Then one transaction.
import { snapshotAgent, templateVariables, type AgentSnapshot } from '../agents/index.ts'
import { type Db, forEachChunk } from '../../platform/db/index.ts'
import { listedAmong } from '../do-not-call/index.ts'
import { validation, type FieldIssue } from '../../platform/errors.ts'
import { newId } from '../../platform/ids.ts'
import { getNumberRoute, type NumberRoute } from '../numbers/index.ts'
import type { SecretBox } from '../../platform/secrets/index.ts'
import { findWorkflowGraph } from '../workflows/index.ts'
import type { Insertable } from 'kysely'
import { WEEKDAYS, type CreateJobBody, type JobSettings, type JobSettingsInput } from './campaigns.model.ts'
import * as repo from './campaigns.repository.ts'
import type { OutboundContactTable, OutboundJobRow } from './campaigns.table.ts'
import type { CampaignEvents } from './events.ts'
import { logJobChange } from './job-log.ts'
import type { Logger } from '../../platform/log.ts'
import { csvPath } from './csv.ts'
import { DEFAULT_WINDOW, startAtMs, windowOpensInAll } from './schedule.ts'
import { MAX_ISSUES, type PreparedContacts } from './upload/index.ts'
import { callZones, isZone } from './zones/index.ts'

/** Variables every call has (calls/conversation/profile.ts): never missing. */
const BUILT_IN = new Set(['caller_number', 'called_number', 'call_type', 'current_time', 'current_date'])
const ROWS_PER_TURN = 5000

export function settingsFrom(input: JobSettingsInput | undefined, issues: FieldIssue[]): JobSettings {
  const s = input ?? {}
  const amd = s.answeringMachineDetection ?? {}
  const settings: JobSettings = {
    maxConcurrent: s.maxConcurrent ?? 1,
    retryAttempts: s.retryAttempts ?? 0,
    retryDelayMs: s.retryDelayMs ?? 600_000,
    retryVoicemail: s.retryVoicemail ?? false,
    ringTimeoutMs: s.ringTimeoutMs ?? 30_000,
    callingWindow: s.callingWindow ? { start: s.callingWindow.start, end: s.callingWindow.end, days: s.callingWindow.days ?? [...WEEKDAYS] } : DEFAULT_WINDOW,
    answeringMachineDetection: { enabled: amd.enabled ?? false, action: amd.action ?? 'hangup', voicemailMessage: amd.voicemailMessage ?? '' },
  }
  if (s.scheduling) settings.scheduling = { ...s.scheduling }
  const tz = s.scheduling?.timezone
  if (tz !== undefined && !isZone(tz)) issues.push({ path: 'settings.scheduling.timezone', message: `unknown IANA time zone '${tz}'` })
  if (s.scheduling?.startAt !== undefined && startAtMs(s.scheduling.startAt, tz && isZone(tz) ? tz : 'UTC') === undefined) {
    issues.push({ path: 'settings.scheduling.startAt', message: 'must be an ISO 8601 date-time such as 2026-12-01T09:00:00' })
  }
  if (settings.callingWindow.end <= settings.callingWindow.start) issues.push({ path: 'settings.callingWindow.end', message: 'must be after start' })
  if (settings.answeringMachineDetection.action === 'voicemail' && !settings.answeringMachineDetection.voicemailMessage.trim()) {
    issues.push({ path: 'settings.answeringMachineDetection.voicemailMessage', message: 'is required when action is voicemail' })
  }
  return settings
}

/** The variables the agent's prompt, welcome and workflow use that no call fills by itself. */
async function usedVariables(db: Db, agent: AgentSnapshot): Promise<string[]> {
  const graph = await findWorkflowGraph(db, agent.workspaceId, agent.agentId)
  const names = new Set([...agent.variables, ...templateVariables(agent.prompt, agent.welcome.message, graph ? JSON.stringify(graph) : '')])
  return [...names].filter((n) => !BUILT_IN.has(n)).sort()
}

export interface CreateDeps {
  db: Db
  box: SecretBox
  events: CampaignEvents
  /** Where a job that starts at once (no future startAt) is logged as started. */
  log?: Logger
}

/** What is wrong with the agent and the number of a job, each checked only when given. */
export async function targetIssues(d: CreateDeps, workspaceId: string, given: { agentId?: string; phoneNumberId?: string }) {
  const issues: FieldIssue[] = []
  let route: NumberRoute | undefined
  let agent: AgentSnapshot | undefined
  if (given.phoneNumberId !== undefined) {
    route = await getNumberRoute(d.db, d.box, given.phoneNumberId)
    if (!route || route.workspaceId !== workspaceId) issues.push({ path: 'phoneNumberId', message: 'no such phone number in this workspace' })
    else if (!route.sip) issues.push({ path: 'phoneNumberId', message: 'the number has no sipTerminationUri to place calls through' })
  }
  if (given.agentId !== undefined) {
    agent = await snapshotAgent(d.db, given.agentId, { workspaceId }).catch(() => undefined)
    if (!agent) issues.push({ path: 'agentId', message: 'no such agent in this workspace' })
    else if (agent.agentType !== 'outbound') issues.push({ path: 'agentId', message: `agent ${agent.agentId} is an inbound agent; campaigns are called by outbound agents` })
  }
  return { issues, route, agent }
}

/** The variables of the agent (if it is one of the workspace's) that a contact should fill. */
export async function agentVariables(d: CreateDeps, workspaceId: string, agentId: string): Promise<string[]> {
  const agent = await snapshotAgent(d.db, agentId, { workspaceId }).catch(() => undefined)
  return agent ? usedVariables(d.db, agent) : []
}

type JobHead = Omit<CreateJobBody, 'contacts' | 'contactsCsv'>

/** A contact that could never be called: its window is never open in all its zones at once, or it has none. */
function neverOpenIssue(prepared: PreparedContacts, position: number, to: string, zones: readonly string[], window: JobSettings['callingWindow']): FieldIssue {
  const origin = prepared.origins[position]!
  const own = prepared.csv ? 'a timezone column' : `contacts[${origin}].timezone`
  const fix = `give the contact a timezone (${own}) or the job settings.scheduling.timezone`
  const named = zones.length <= 4 ? zones.join(', ') : `${zones.slice(0, 2).join(', ')} ... ${zones.at(-1)}`
  const why = zones.length ? `${to} may be in any of ${zones.length} time zones (${named}); ${window.start}-${window.end} is never open in all of them at once` : `no time zone is known for ${to}`
  return prepared.csv ? { path: csvPath(origin, 'to'), message: `line ${origin}: ${why}: ${fix}` } : { path: `contacts[${origin}].to`, message: `${why}: ${fix}` }
}

/** A job of contacts prepared off the event loop (upload/prepare.ts): the rest is checked here, then stored. */
export async function createJob(d: CreateDeps, workspaceId: string, body: JobHead, prepared: PreparedContacts, nowMs: number) {
  const { issues, route, agent } = await targetIssues(d, workspaceId, body)
  const settings = settingsFrom(body.settings, issues)
  issues.push(...prepared.issues)
  if (issues.length) throw validation(issues.slice(0, MAX_ISSUES))

  const zone = settings.scheduling?.timezone ?? 'UTC'
  const startMs = settings.scheduling?.startAt ? startAtMs(settings.scheduling.startAt, zone)! : nowMs
  const scheduled = startMs > nowMs
  const numbers = prepared.count ? prepared.numbers.split('\n') : []
  const ownZones = prepared.count ? prepared.timezones.split('\n') : []
  const listed = await listedAmong(d.db, workspaceId, numbers)
  const createdAt = new Date(nowMs).toISOString()
  const jobId = newId('job')
  const job = {
    id: jobId,
    workspace_id: workspaceId,
    agent_id: agent!.agentId,
    phone_number_id: route!.id,
    name: body.name?.trim() || `Campaign ${createdAt.slice(0, 16).replace('T', ' ')}`,
    status: scheduled ? ('scheduled' as const) : ('in_progress' as const),
    settings: JSON.stringify(settings),
    start_at_ms: startMs,
    total_contacts: numbers.length,
    pending: numbers.length - listed.size,
    suppressed: listed.size,
    created_at: createdAt,
    started_at: scheduled ? null : createdAt,
  }
  const contacts: Insertable<OutboundContactTable>[] = []
  // by the zone, or by the prefix's own list: the prefix data hands out one array per prefix
  const neverOpen = new Map<string | readonly string[], boolean>()
  const closed: FieldIssue[] = []
  let from = 0
  // 100,000 rows must not hold the event loop
  await forEachChunk(numbers, ROWS_PER_TURN, (chunk, offset) => {
    for (const [i, to] of chunk.entries()) {
      const position = offset + i
      const end = prepared.variables.indexOf('\n', from)
      const variables = prepared.variables.slice(from, end < 0 ? undefined : end)
      from = end + 1
      const suppressed = listed.has(to)
      const own = ownZones[position] || null
      if (!suppressed) {
        const { zones } = callZones(to, own, settings.scheduling?.timezone)
        const key = zones.length === 1 ? zones[0]! : zones
        let never = neverOpen.get(key)
        if (never === undefined) neverOpen.set(key, (never = !Number.isFinite(windowOpensInAll(startMs, settings.callingWindow, zones))))
        if (never && closed.length < MAX_ISSUES) closed.push(neverOpenIssue(prepared, position, to, zones, settings.callingWindow))
      }
      contacts.push({
        id: `${jobId}_${position}`,
        job_id: jobId,
        position,
        to_number: to,
        timezone: own,
        variables,
        status: suppressed ? 'suppressed' : 'pending',
        outcome: suppressed ? 'suppressed' : null,
        next_attempt_ms: startMs,
        updated_at: createdAt,
      })
    }
  })
  if (closed.length) throw validation(closed)
  await d.db.transaction().execute(async (trx) => {
    await repo.insertJob(trx, job, contacts)
    if (!scheduled) await d.events.emit(trx, { type: 'job.started', workspaceId, jobId, at: createdAt })
  })
  const row = (await repo.findJob(d.db, workspaceId, jobId)) as OutboundJobRow & { agent_name: string | null; phone_e164: string | null }
  if (!scheduled) logJobChange(d.log, row, 'started', 'in_progress')
  return { jobId, warnings: prepared.warnings, row }
}
