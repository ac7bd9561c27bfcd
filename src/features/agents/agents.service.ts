import { type Db, finishPage, isConstraintViolation, pageLimit } from '../../platform/db/index.ts'
import { conflict, type FieldIssue, notFound, validation } from '../../platform/errors.ts'
import { newId, nowIso } from '../../platform/ids.ts'
import { checkOutboundUrl, dnsResolver, type Resolver, type UrlPolicy } from '../../platform/net/index.ts'
import { voiceProviderOf } from '../providers/index.ts'
import { type Agent, type AgentData, type CreateAgentBody, type Endpointing, ENDPOINTING_PRESETS, type ListAgentsQuery, type UpdateAgentBody, type Voice, type Welcome } from './agents.model.ts'
import * as repo from './agents.repository.ts'
import { AGENT_COLUMNS, type AgentTable } from './agents.table.ts'
import { llmModelIssues, voiceIssues } from './serviceable.ts'
import { checkTools } from './tools.ts'
import { vocabularyOf } from './vocabulary.ts'
import { templateVariables } from '../../platform/template.ts'
import { findBases } from '../knowledge/index.ts'

/** Which of some knowledge base ids are bases of the agent's workspace. */
type KnownBases = (ids: string[]) => Promise<Set<string>>
const basesOf = (db: Db, workspaceId: string): KnownBases => async (ids) => new Set((await findBases(db, workspaceId, ids)).map((b) => b.id))

async function knowledgeIssues(ids: string[], bases: KnownBases): Promise<FieldIssue[]> {
  const known = await bases(ids)
  return ids.flatMap((id, i) =>
    !known.has(id) ? [{ path: `knowledgeBaseIds[${i}]`, message: 'is no knowledge base of this workspace' }] : ids.indexOf(id) !== i ? [{ path: `knowledgeBaseIds[${i}]`, message: 'is listed twice' }] : [],
  )
}

export interface AgentRules {
  urlPolicy: UrlPolicy
  resolve?: Resolver
  /** llmModel of a new agent that names none (the configured LLM's model); DEFAULT_LLM_MODEL when unset. */
  defaultLlmModel?: string
  /** voice of a new agent that names none (the configured TTS voice); DEFAULT_VOICE when unset. */
  defaultVoice?: Voice
  /**
   * Whether a refused URL's message may say what its host resolved to (admins). Members get one
   * message for every such refusal, or saving URLs would map the appliance's network for them.
   */
  revealResolution?: boolean
}

/** What a member is told of a URL refused for what its name resolved to, whatever that was. */
export const UNREACHABLE_URL = 'refused: the host is not one the appliance may send to (it does not resolve, or resolves to an address the appliance may not reach); an admin sees the detail'

const urlMessage = (v: { reason: string; resolved?: true }, rules: AgentRules) => (v.resolved && !rules.revealResolution ? UNREACHABLE_URL : v.reason)

export const DEFAULT_WELCOME: Welcome = { mode: 'user_speaks_first', message: '', interruptible: true, delayMs: 0 }
export const DEFAULT_VOICE: Voice = { provider: 'flite', voiceId: 'slt', speed: 1 }
export const DEFAULT_LLM_MODEL = 'gpt-4o-mini'
export const DEFAULT_LANGUAGE = 'en-US'
export const DEFAULT_ENDPOINTING: Endpointing = 'normal'

/** The stored text of an endpointing setting back to its API value; anything unknown reads as the default. */
export function endpointingOf(text: string): Endpointing {
  if ((ENDPOINTING_PRESETS as readonly string[]).includes(text)) return text as Endpointing
  return /^\d+$/.test(text) ? Number(text) : DEFAULT_ENDPOINTING
}

/** A row as the API shows it: the one reader of the agent's JSON columns. */
export function toAgent(row: AgentTable): Agent {
  const welcome = JSON.parse(row.welcome) as Welcome
  return {
    id: row.id,
    workspaceId: row.workspace_id,
    name: row.name,
    promptDraft: row.prompt_draft,
    promptPublished: row.prompt_published,
    welcome,
    voice: JSON.parse(row.voice),
    llmModel: row.llm_model,
    language: row.language,
    enabledTools: JSON.parse(row.enabled_tools),
    toolConfigs: JSON.parse(row.tool_configs),
    webhookUrl: row.webhook_url,
    agentType: row.agent_type,
    role: row.role,
    endpointing: endpointingOf(row.endpointing),
    maxDurationSec: row.max_duration_sec ? Number(row.max_duration_sec) : null,
    knowledgeBaseIds: JSON.parse(row.knowledge_base_ids),
    knowledgeAutoSearch: row.knowledge_auto_search === 'true',
    vocabulary: JSON.parse(row.vocabulary),
    variables: templateVariables(row.prompt_draft, row.prompt_published, welcome.message),
    version: row.version,
    publishedAt: row.published_at,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  }
}

type SettingColumns = Omit<AgentTable, 'id' | 'workspace_id' | 'version' | 'published_at' | 'created_at' | 'updated_at'>

function toColumns(d: AgentData): SettingColumns {
  return {
    name: d.name.trim(),
    prompt_draft: d.promptDraft,
    prompt_published: d.promptPublished,
    welcome: JSON.stringify(d.welcome),
    voice: JSON.stringify(d.voice),
    llm_model: d.llmModel,
    language: d.language,
    enabled_tools: JSON.stringify(d.enabledTools),
    tool_configs: JSON.stringify(d.toolConfigs),
    webhook_url: d.webhookUrl,
    agent_type: d.agentType,
    role: d.role,
    endpointing: String(d.endpointing),
    max_duration_sec: d.maxDurationSec === null ? '' : String(d.maxDurationSec),
    knowledge_base_ids: JSON.stringify(d.knowledgeBaseIds),
    knowledge_auto_search: String(d.knowledgeAutoSearch),
    vocabulary: JSON.stringify(d.vocabulary),
  }
}

const welcomeFrom = (w: UpdateAgentBody['welcome']): Welcome => ({ ...DEFAULT_WELCOME, ...w })

function voiceFrom(v: UpdateAgentBody['voice']): Voice {
  const provider = v?.provider ?? DEFAULT_VOICE.provider
  const voiceId = v?.voiceId ?? (provider === DEFAULT_VOICE.provider ? DEFAULT_VOICE.voiceId : voiceProviderOf(provider)?.voices[0] ?? '')
  return { provider, voiceId, speed: v?.speed ?? 1 }
}

/** PATCH keeps the members of welcome and voice that the body leaves out; a new voice provider without a voiceId takes that provider's default voice. */
function mergeNested(base: AgentData, body: UpdateAgentBody, configured: Voice | undefined): UpdateAgentBody {
  const out: UpdateAgentBody = { ...body }
  if (body.welcome !== undefined) out.welcome = { ...base.welcome, ...body.welcome }
  const v = body.voice
  if (v !== undefined) {
    const switching = v.provider !== undefined && v.provider !== base.voice.provider && v.voiceId === undefined
    const voiceId = configured && v.provider === configured.provider ? configured.voiceId : undefined
    out.voice = switching ? { provider: v.provider, voiceId, speed: v.speed ?? base.voice.speed } : { ...base.voice, ...v }
  }
  return out
}

/** Applies a body (create or PUT) onto a state; nested welcome and voice objects are replaced whole. */
function apply(base: AgentData, body: UpdateAgentBody): AgentData {
  const given = Object.entries(body).filter(([key, value]) => value !== undefined && Object.hasOwn(AGENT_COLUMNS, key))
  const next = { ...base, ...Object.fromEntries(given) } as AgentData
  if (body.welcome !== undefined) next.welcome = welcomeFrom(body.welcome)
  if (body.voice !== undefined) next.voice = voiceFrom(body.voice)
  if (body.webhookUrl !== undefined) next.webhookUrl = body.webhookUrl ?? ''
  return next
}

/** Checks the state an agent would have after `body`; throws one 422 naming every bad field path. */
async function validateAgent(next: AgentData, body: UpdateAgentBody, rules: AgentRules, bases: KnownBases): Promise<AgentData> {
  const issues: FieldIssue[] = []
  if (body.knowledgeBaseIds !== undefined) issues.push(...(await knowledgeIssues(next.knowledgeBaseIds, bases)))
  if (body.vocabulary !== undefined) {
    const checked = vocabularyOf(next.vocabulary)
    issues.push(...checked.issues)
    next.vocabulary = checked.words
  }
  if (body.llmModel !== undefined) issues.push(...llmModelIssues(next.llmModel))
  if (body.voice !== undefined) issues.push(...voiceIssues(next.voice))
  if (body.language !== undefined) {
    try {
      const [canonical] = Intl.getCanonicalLocales(next.language)
      if (canonical) next.language = canonical
    } catch {
      issues.push({ path: 'language', message: `'${next.language}' is not a BCP 47 language tag such as en-US` })
    }
  }
  if (next.welcome.mode === 'agent_speaks_first' && next.welcome.message.trim() === '') {
    issues.push({ path: 'welcome.message', message: 'is required when welcome.mode is agent_speaks_first' })
  }
  const tools = checkTools(next.enabledTools, next.toolConfigs)
  issues.push(...tools.issues)
  const resolve = rules.resolve ?? dnsResolver
  if (body.webhookUrl !== undefined && next.webhookUrl !== '') {
    const verdict = await checkOutboundUrl(next.webhookUrl, rules.urlPolicy, resolve)
    if (!verdict.ok) issues.push({ path: 'webhookUrl', message: urlMessage(verdict, rules) })
    else next.webhookUrl = verdict.url.href
  }
  const http = tools.configs.http_request as { url: string } | undefined
  if (body.toolConfigs !== undefined && http) {
    const verdict = await checkOutboundUrl(http.url, rules.urlPolicy, resolve)
    if (!verdict.ok) issues.push({ path: 'toolConfigs.http_request.url', message: urlMessage(verdict, rules) })
  }
  if (issues.length) throw validation(issues)
  return { ...next, toolConfigs: tools.configs }
}

const DEFAULTS: AgentData = {
  name: '',
  promptDraft: '',
  promptPublished: '',
  welcome: DEFAULT_WELCOME,
  voice: DEFAULT_VOICE,
  llmModel: DEFAULT_LLM_MODEL,
  language: DEFAULT_LANGUAGE,
  enabledTools: [],
  toolConfigs: {},
  webhookUrl: '',
  agentType: 'inbound',
  role: 'reception',
  endpointing: DEFAULT_ENDPOINTING,
  maxDurationSec: null,
  knowledgeBaseIds: [],
  knowledgeAutoSearch: false,
  vocabulary: [],
}

export async function createAgent(db: Db, workspaceId: string, body: CreateAgentBody, rules: AgentRules): Promise<Agent> {
  const data = await validateAgent(apply({ ...DEFAULTS, llmModel: rules.defaultLlmModel ?? DEFAULT_LLM_MODEL, voice: rules.defaultVoice ?? DEFAULT_VOICE }, body), body, rules, basesOf(db, workspaceId))
  const at = nowIso()
  const row: AgentTable = {
    id: newId('ag'),
    workspace_id: workspaceId,
    ...toColumns(data),
    version: 1,
    published_at: body.promptPublished !== undefined ? at : null,
    created_at: at,
    updated_at: at,
  }
  await repo.insertAgent(db, row)
  return toAgent(row)
}

export async function findAgent(db: Db, workspaceId: string, id: string): Promise<Agent | undefined> {
  const row = await repo.findAgent(db, workspaceId, id)
  return row && toAgent(row)
}

export async function getAgent(db: Db, workspaceId: string, id: string): Promise<Agent> {
  const agent = await findAgent(db, workspaceId, id)
  if (!agent) throw notFound('agent')
  return agent
}

export async function listAgents(db: Db, workspaceId: string, query: ListAgentsQuery) {
  const rows = await repo.listAgents(db, workspaceId, { agentType: query.agentType, role: query.role }, query)
  const { items, nextCursor } = finishPage(rows, pageLimit(query), (r) => [r.created_at, r.id])
  return { agents: items.map(toAgent), nextCursor }
}

const dataOf = (a: Agent): AgentData => Object.fromEntries(Object.keys(AGENT_COLUMNS).map((key) => [key, a[key as keyof AgentData]])) as AgentData

async function write(db: Db, current: AgentTable, data: AgentData, publishedAt: string | null): Promise<Agent> {
  const row: AgentTable = {
    ...current,
    ...toColumns(data),
    version: current.version + 1,
    published_at: publishedAt,
    updated_at: nowIso(),
  }
  if (!(await repo.updateAgent(db, row, current.version))) throw conflict('the agent was changed by another request; read it again and retry')
  return toAgent(row)
}

/**
 * PUT (mode 'replace'): any subset of the fields, welcome and voice replaced whole. PATCH (mode
 * 'merge'): the same, with welcome and voice merged member by member. Same validation, same 409
 * for a lost race; running calls keep their snapshot (see snapshotAgent).
 */
export async function updateAgent(db: Db, workspaceId: string, id: string, body: UpdateAgentBody, rules: AgentRules, mode: 'replace' | 'merge' = 'replace'): Promise<Agent> {
  const current = await repo.findAgent(db, workspaceId, id)
  if (!current) throw notFound('agent')
  const base = dataOf(toAgent(current))
  if (mode === 'merge') body = mergeNested(base, body, rules.defaultVoice)
  const data = await validateAgent(apply(base, body), body, rules, basesOf(db, workspaceId))
  if (data.agentType !== current.agent_type) {
    const using = await repo.numbersUsingAgentAs(db, id, current.agent_type)
    if (using.length) {
      throw validation([{ path: 'agentType', message: `the agent is the ${current.agent_type} agent of ${using.map((n) => n.id).join(', ')}; unassign it there first` }])
    }
  }
  const published = body.promptPublished !== undefined ? nowIso() : current.published_at
  return write(db, current, data, published)
}

/** Copies promptDraft to promptPublished: the next call uses it. */
export async function publishAgent(db: Db, workspaceId: string, id: string): Promise<Agent> {
  const current = await repo.findAgent(db, workspaceId, id)
  if (!current) throw notFound('agent')
  const data = dataOf(toAgent(current))
  return write(db, current, { ...data, promptPublished: data.promptDraft }, nowIso())
}

/**
 * Refused with 409 while a phone number routes to the agent (unassign it first) or while any
 * other record still references it (outbound jobs hold a foreign key).
 */
export async function deleteAgent(db: Db, workspaceId: string, id: string): Promise<void> {
  const current = await repo.findAgent(db, workspaceId, id)
  if (!current) throw notFound('agent')
  const numbers = await repo.numbersUsingAgent(db, id)
  if (numbers.length) {
    throw conflict('the agent is assigned to phone numbers; unassign it first', { reason: 'agent_in_use', phoneNumberIds: numbers.map((n) => n.id) })
  }
  try {
    await repo.deleteAgent(db, workspaceId, id)
  } catch (err) {
    if (isConstraintViolation(err)) {
      throw conflict('the agent is still used (for example by an outbound job); finish or delete that first', { reason: 'agent_in_use' })
    }
    throw err
  }
}

/** A deleted knowledge base leaves every agent that linked it (a new version of each; running calls keep theirs). */
export async function unlinkKnowledgeBase(db: Db, workspaceId: string, baseId: string): Promise<number> {
  let changed = 0
  for (const row of await repo.agentsLinkingBase(db, workspaceId, baseId)) {
    const linked = JSON.parse(row.knowledge_base_ids) as string[]
    const ids = linked.filter((id) => id !== baseId)
    if (ids.length === linked.length) continue
    const next = { ...row, knowledge_base_ids: JSON.stringify(ids), version: row.version + 1, updated_at: nowIso() }
    if (await repo.updateAgent(db, next, row.version)) changed++
  }
  return changed
}
