// Creating a job: validation that names each offending field, duplicate numbers merged, the
// do-not-call list applied, warnings for variables a contact lacks. Then one transaction.
import { snapshotAgent, templateVariables, type AgentSnapshot } from '../agents/index.ts'
import type { Db } from '../db/index.ts'
import { listedAmong } from '../do-not-call/index.ts'
import { validation, type FieldIssue } from '../errors.ts'
import { newId, nowIso } from '../ids.ts'
import { getNumberRoute, strictE164 } from '../numbers/index.ts'
import type { SecretBox } from '../secrets/index.ts'
import { findWorkflowGraph } from '../workflows/index.ts'
import { MAX_CONTACTS, WEEKDAYS, type CreateJobBody, type JobSettings, type JobSettingsInput } from './campaigns.model.ts'
import * as repo from './campaigns.repository.ts'
import type { OutboundJobRow } from './campaigns.table.ts'
import type { CampaignEvents } from './events.ts'
import { DEFAULT_WINDOW, isZone, startAtMs } from './schedule.ts'

export interface Warning {
  path: string
  message: string
}

const VARIABLE_NAME = /^[A-Za-z_][A-Za-z0-9_.-]*$/
/** Variables every call has (calls/runtime/profile.ts): never missing. */
const BUILT_IN = new Set(['caller_number', 'called_number', 'call_type', 'current_time', 'current_date'])
const MAX_ISSUES = 50
const MAX_WARNINGS = 100
const YIELD_EVERY = 500

interface Contact {
  to: string
  dynamicVariables?: Record<string, string | number | boolean>
}

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
}

export async function createJob(d: CreateDeps, workspaceId: string, body: Omit<CreateJobBody, 'contactsCsv'> & { contacts: Contact[] }, nowMs = Date.now()) {
  const issues: FieldIssue[] = []
  const warnings: Warning[] = []
  const issue = (path: string, message: string) => issues.length < MAX_ISSUES && issues.push({ path, message })
  const warn = (path: string, message: string) => warnings.length < MAX_WARNINGS && warnings.push({ path, message })

  const route = await getNumberRoute(d.db, d.box, body.phoneNumberId)
  if (!route || route.workspaceId !== workspaceId) issue('phoneNumberId', 'no such phone number in this workspace')
  else if (!route.sip) issue('phoneNumberId', 'the number has no sipTerminationUri to place calls through')
  const agent = await snapshotAgent(d.db, body.agentId, { workspaceId }).catch(() => undefined)
  if (!agent) issue('agentId', 'no such agent in this workspace')
  else if (agent.agentType !== 'outbound') issue('agentId', `agent ${agent.agentId} is an inbound agent; campaigns are called by outbound agents`)
  const settings = settingsFrom(body.settings, issues)
  if (!body.contacts.length) issue('contacts', 'at least one contact is required')
  if (body.contacts.length > MAX_CONTACTS) issue('contacts', `at most ${MAX_CONTACTS} contacts per job`)

  const used = agent ? await usedVariables(d.db, agent) : []
  const firstIndex = new Map<string, number>()
  const kept: { to: string; variables: Record<string, string> }[] = []
  let merged = 0
  for (let i = 0; i < body.contacts.length; i++) {
    if (i % YIELD_EVERY === YIELD_EVERY - 1) await new Promise((r) => setImmediate(r)) // a 100,000-contact job must not hold the event loop
    const c = body.contacts[i]!
    const to = typeof c.to === 'string' ? strictE164(c.to.trim()) : undefined
    if (!to) {
      issue(`contacts[${i}].to`, 'must be an E.164 number such as +14155550123')
      continue
    }
    const variables: Record<string, string> = {}
    for (const [k, v] of Object.entries(c.dynamicVariables ?? {})) {
      if (!VARIABLE_NAME.test(k)) issue(`contacts[${i}].dynamicVariables.${k}`, 'names must look like {{placeholders}}: a letter or _, then letters, digits, _ . -')
      else variables[k] = String(v)
    }
    const first = firstIndex.get(to)
    if (first !== undefined) {
      merged++
      warn(`contacts[${i}].to`, `duplicate of contacts[${first}]; merged: the number is called once, with the first contact's variables`)
      continue
    }
    firstIndex.set(to, i)
    const missing = used.filter((n) => !Object.hasOwn(variables, n))
    if (missing.length) warn(`contacts[${i}].dynamicVariables`, `missing ${missing.join(', ')} used by the agent; spoken as the placeholder text`)
    kept.push({ to, variables })
  }
  if (issues.length) throw validation(issues)
  if (warnings.length === MAX_WARNINGS) warnings.push({ path: 'contacts', message: `only the first ${MAX_WARNINGS} warnings are listed` })

  const zone = settings.scheduling?.timezone ?? 'UTC'
  const startMs = settings.scheduling?.startAt ? startAtMs(settings.scheduling.startAt, zone)! : nowMs
  const scheduled = startMs > nowMs
  const listed = await listedAmong(d.db, workspaceId, kept.map((k) => k.to))
  const createdAt = nowIso()
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
    total_contacts: kept.length,
    pending: kept.length - listed.size,
    suppressed: listed.size,
    created_at: createdAt,
    started_at: scheduled ? null : createdAt,
  }
  const contacts = kept.map((k, position) => ({
    id: `${jobId}_${position}`,
    job_id: jobId,
    position,
    to_number: k.to,
    variables: JSON.stringify(k.variables),
    status: listed.has(k.to) ? ('suppressed' as const) : ('pending' as const),
    outcome: listed.has(k.to) ? ('suppressed' as const) : null,
    next_attempt_ms: startMs,
    updated_at: createdAt,
  }))
  await d.db.transaction().execute(async (trx) => {
    await repo.insertJob(trx, job, contacts)
    if (!scheduled) await d.events.emit(trx, { type: 'job.started', workspaceId, jobId, at: createdAt })
  })
  if (merged) warnings.unshift({ path: 'contacts', message: `${merged} duplicate number(s) merged` })
  return { jobId, warnings, row: (await repo.findJob(d.db, workspaceId, jobId)) as OutboundJobRow & { agent_name: string | null; phone_e164: string | null } }
}
