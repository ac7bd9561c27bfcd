import type { Config } from '../../platform/config/index.ts'
import { requirePaymentMethod } from '../billing/index.ts'
import { carrierCall, carrierClient, CarrierError, fromCarrier } from '../carrier/index.ts'
import { type Db, finishPage, isConstraintViolation, pageLimit, type PageRequest } from '../../platform/db/index.ts'
import { AppError, conflict, type FieldIssue, notFound, validation } from '../../platform/errors.ts'
import { newId, nowIso } from '../../platform/ids.ts'
import { parseSipUri, type PublicBase, sipUriProblem } from '../../platform/net/index.ts'
import type { SecretBox } from '../../platform/secrets/index.ts'
import { assignAgents, type AgentSlots, checkAgents } from './agent-slots.ts'
import { displayE164, strictE164 } from './e164.ts'
import type { CreatePhoneNumberBody, PhoneNumber, UpdatePhoneNumberBody } from './numbers.model.ts'
import * as repo from './numbers.repository.ts'
import type { NumberMediaEncryption, PhoneNumberTable, SipTransport } from './numbers.table.ts'
import { nextStatus } from './status.ts'

export interface NumbersDeps {
  db: Db
  box: SecretBox
  config: Pick<Config, 'CARRIER_API_BASE' | 'CARRIER_ACCOUNT_SID' | 'CARRIER_AUTH_TOKEN' | 'PUBLIC_HOST' | 'MEDIA_ENCRYPTION'>
  /** Where the carrier reaches this appliance's HTTP API (net/public-url.ts). */
  publicBase: PublicBase
}

export const passwordContext = (id: string) => `phone_numbers.sip_password:${id}`

/** The API view of a number. The SIP password never leaves this module except through the SIP lookup. */
export function toPhoneNumber(r: PhoneNumberTable): PhoneNumber {
  return {
    id: r.id,
    workspaceId: r.workspace_id,
    e164: r.e164,
    label: r.label,
    provider: r.provider,
    status: r.status,
    statusReason: r.status_reason,
    inboundAgentId: r.inbound_agent_id,
    outboundAgentId: r.outbound_agent_id,
    source: r.source,
    sipTerminationUri: r.sip_termination_uri,
    sipUsername: r.sip_username,
    hasSipPassword: r.sip_password_enc !== null,
    sipOutboundTransport: r.sip_outbound_transport,
    sipRegister: r.sip_register === 1,
    mediaEncryption: r.media_encryption,
    whenBusy: r.when_busy ?? 'refuse',
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  }
}

/** The fields that reach the trunk: changing one clears a trunk error (status.ts sipSettingsChanged). */
const SIP_FIELDS = ['sipTerminationUri', 'sipUsername', 'sipPassword', 'sipOutboundTransport', 'sipRegister'] as const
/**
 * Every field only a sip number takes. mediaEncryption is one, but not a trunk setting: the trunk is
 * as reachable with SRTP as without, so changing it leaves an error status alone.
 */
const SIP_ONLY_FIELDS = [...SIP_FIELDS, 'mediaEncryption'] as const

function checkE164(raw: string, path: string, issues: FieldIssue[]): string {
  const e164 = strictE164(raw)
  if (!e164) issues.push({ path, message: 'must be a valid E.164 number such as +14155550123 (a plus sign, the country code, digits only)' })
  return e164 ?? raw
}

function checkSip(uri: string | null, transport: SipTransport, username: string | null, hasPassword: boolean, issues: FieldIssue[]) {
  if (uri === null) {
    issues.push({ path: 'sipTerminationUri', message: 'is required for sip numbers' })
    return
  }
  const parsed = parseSipUri(uri)
  if (!parsed) issues.push({ path: 'sipTerminationUri', message: 'must be a SIP URI such as sip:trunk.example.com:5061 or sip:+14155550123@203.0.113.7' })
  else {
    const problem = sipUriProblem(parsed.host, Object.keys(parsed.params))
    if (problem) issues.push({ path: 'sipTerminationUri', message: `refused: ${problem}` })
    if (parsed.scheme === 'sips' && transport !== 'tls') issues.push({ path: 'sipOutboundTransport', message: 'must be tls for a sips: URI' })
  }
  if (hasPassword && !username) issues.push({ path: 'sipUsername', message: 'is required when sipPassword is set' })
}

/**
 * SDES keys travel in the SDP, so `required` (SRTP only) needs TLS signalling to the trunk: over
 * udp or tcp anyone on the path could read the keys and the encryption would protect nothing.
 * A `;transport=` parameter of the trunk URI overrides sipOutboundTransport on the wire, so it is
 * held to the same rule. `fromDefault`: the value is MEDIA_ENCRYPTION's, the body did not name it.
 */
function checkMediaEncryption(encryption: NumberMediaEncryption, transport: SipTransport, uri: string | null, fromDefault: boolean, issues: FieldIssue[]) {
  if (encryption !== 'required') return
  const required = `required${fromDefault ? ' (the MEDIA_ENCRYPTION default)' : ''}`
  if (transport !== 'tls') {
    issues.push({
      path: 'mediaEncryption',
      message:
        `${required} needs sipOutboundTransport tls: SDES keys travel in the SDP, ` +
        `and over ${transport} anyone on the path reads them; set sipOutboundTransport to tls or mediaEncryption to optional`,
    })
    return
  }
  const param = uri ? parseSipUri(uri)?.params.transport : undefined
  if (typeof param === 'string' && param.toLowerCase() !== 'tls') {
    issues.push({
      path: 'mediaEncryption',
      message:
        `${required} needs TLS signalling, and the transport=${param.toLowerCase()} of sipTerminationUri sends the calls over ${param.toLowerCase()}, ` +
        'where anyone on the path reads the SDES keys in the SDP; drop that parameter or set mediaEncryption to optional',
    })
  }
}

async function uniqueInsert(db: Db, row: PhoneNumberTable): Promise<void> {
  try {
    await repo.insertNumber(db, row)
  } catch (err) {
    // a concurrent connect of the same e164 won the race: the unique index refused this one
    if (isConstraintViolation(err)) await refuseIfTaken(db, row.workspace_id, row.e164)
    throw err
  }
}

/** Throws 409 when the e164 is live anywhere: `conflict` in this workspace, `number_in_use` in another. */
async function refuseIfTaken(db: Db, workspaceId: string, e164: string): Promise<void> {
  const owner = await repo.findLiveOwnerOfE164(db, e164)
  if (!owner) return
  if (owner.workspace_id === workspaceId) throw conflict(`${e164} is already in this workspace`, { e164 })
  throw new AppError(409, 'number_in_use', `${e164} is in use by another workspace of this appliance; a number takes inbound calls in one workspace at a time`, { e164 })
}

function baseRow(workspaceId: string, e164: string, label: string | undefined): PhoneNumberTable {
  const at = nowIso()
  return {
    id: newId('pn'),
    workspace_id: workspaceId,
    e164,
    label: label?.trim() || displayE164(e164),
    provider: 'sip',
    status: 'unconfigured',
    status_reason: null,
    source: 'connected',
    inbound_agent_id: null,
    outbound_agent_id: null,
    sip_termination_uri: null,
    sip_username: null,
    sip_password_enc: null,
    sip_outbound_transport: 'tls',
    sip_register: 0,
    media_encryption: 'none',
    when_busy: 'refuse',
    carrier_sid: null,
    released_at: null,
    created_at: at,
    updated_at: at,
  }
}

/** POST /api/phone-numbers: connects a SIP number, or buys `e164` through the carrier. */
export async function addNumber(deps: NumbersDeps, workspaceId: string, body: CreatePhoneNumberBody): Promise<PhoneNumber> {
  const issues: FieldIssue[] = []
  const e164 = checkE164(body.e164, 'e164', issues)
  await checkAgents(deps.db, workspaceId, body, issues)
  const provider = body.provider ?? (SIP_ONLY_FIELDS.some((f) => body[f] !== undefined) ? 'sip' : 'carrier')
  if (provider === 'carrier') {
    for (const f of SIP_ONLY_FIELDS) if (body[f] !== undefined) issues.push({ path: f, message: 'is only for sip numbers' })
    if (issues.length) throw validation(issues)
    return buyNumber(deps, workspaceId, e164, body.label, body)
  }
  const transport = body.sipOutboundTransport ?? 'tls'
  // loadConfig refuses any MEDIA_ENCRYPTION but none, optional and required
  const encryption = body.mediaEncryption ?? (deps.config.MEDIA_ENCRYPTION as NumberMediaEncryption)
  checkSip(body.sipTerminationUri ?? null, transport, body.sipUsername ?? null, body.sipPassword !== undefined, issues)
  checkMediaEncryption(encryption, transport, body.sipTerminationUri ?? null, body.mediaEncryption === undefined, issues)
  if (issues.length) throw validation(issues)
  await requirePaymentMethod(deps.db, workspaceId)
  await refuseIfTaken(deps.db, workspaceId, e164)
  const row = baseRow(workspaceId, e164, body.label)
  assignAgents(row, body)
  row.sip_termination_uri = body.sipTerminationUri ?? null
  row.sip_username = body.sipUsername ?? null
  row.sip_outbound_transport = transport
  row.sip_register = body.sipRegister ? 1 : 0
  row.media_encryption = encryption
  if (body.whenBusy) row.when_busy = body.whenBusy
  if (body.sipPassword !== undefined) row.sip_password_enc = deps.box.encrypt(body.sipPassword, passwordContext(row.id))
  await uniqueInsert(deps.db, row)
  return toPhoneNumber(row)
}

export const voiceUrl = (publicBase: PublicBase): string => `${publicBase()}/carrier/twilio/voice`

/** Buys through the carrier and records it (provider carrier, source purchased). A failed record releases it again. `agents` are checked already. */
export async function buyNumber(deps: NumbersDeps, workspaceId: string, rawE164: string, label?: string, agents: AgentSlots = {}): Promise<PhoneNumber> {
  const issues: FieldIssue[] = []
  const e164 = checkE164(rawE164, 'phoneNumber', issues)
  if (issues.length) throw validation(issues)
  await requirePaymentMethod(deps.db, workspaceId)
  await refuseIfTaken(deps.db, workspaceId, e164)
  const client = await carrierClient(deps.db, deps.box, deps.config, workspaceId)
  const row = baseRow(workspaceId, e164, label)
  assignAgents(row, agents)
  const bought = await carrierCall(client.buyNumber({ phoneNumber: e164, friendlyName: row.label, voiceUrl: voiceUrl(deps.publicBase) }))
  // the carrier's leg is its own business: a bought number's media encryption is none, whatever MEDIA_ENCRYPTION says
  Object.assign(row, { provider: 'carrier', source: 'purchased', sip_outbound_transport: 'tls', media_encryption: 'none', carrier_sid: bought.sid })
  try {
    await uniqueInsert(deps.db, row)
  } catch (err) {
    await client.releaseNumber(bought.sid).catch(() => {})
    throw err
  }
  return toPhoneNumber(row)
}

export async function listNumbers(db: Db, workspaceId: string, page: PageRequest) {
  const rows = await repo.listLiveNumbers(db, workspaceId, page)
  const { items, nextCursor } = finishPage(rows, pageLimit(page), (r) => [r.created_at, r.id])
  return { phoneNumbers: items.map(toPhoneNumber), nextCursor }
}

export async function getNumber(db: Db, workspaceId: string, id: string): Promise<PhoneNumber> {
  const row = await repo.findLiveNumber(db, workspaceId, id)
  if (!row) throw notFound('phone number')
  return toPhoneNumber(row)
}

export async function updateNumber(deps: NumbersDeps, workspaceId: string, id: string, body: UpdatePhoneNumberBody): Promise<PhoneNumber> {
  const current = await repo.findLiveNumber(deps.db, workspaceId, id)
  if (!current) throw notFound('phone number')
  const issues: FieldIssue[] = []
  await checkAgents(deps.db, workspaceId, body, issues)
  const sipChanged = SIP_FIELDS.some((f) => body[f] !== undefined)
  const encryptionChanged = body.mediaEncryption !== undefined
  const set: Partial<PhoneNumberTable> = {}
  if ((sipChanged || encryptionChanged) && current.provider !== 'sip') {
    for (const f of SIP_ONLY_FIELDS) if (body[f] !== undefined) issues.push({ path: f, message: 'is only for sip numbers' })
  } else if (sipChanged || encryptionChanged) {
    set.sip_termination_uri = body.sipTerminationUri ?? current.sip_termination_uri
    set.sip_outbound_transport = body.sipOutboundTransport ?? current.sip_outbound_transport
    set.sip_username = body.sipUsername === undefined ? current.sip_username : body.sipUsername
    if (body.sipRegister !== undefined) set.sip_register = body.sipRegister ? 1 : 0
    if (body.sipPassword !== undefined) set.sip_password_enc = body.sipPassword === null ? null : deps.box.encrypt(body.sipPassword, passwordContext(id))
    const hasPassword = (set.sip_password_enc === undefined ? current.sip_password_enc : set.sip_password_enc) !== null
    checkSip(set.sip_termination_uri, set.sip_outbound_transport, set.sip_username, hasPassword, issues)
    if (body.mediaEncryption !== undefined) set.media_encryption = body.mediaEncryption
    // both orders: required set on a udp number, or a required number moved off tls
    checkMediaEncryption(set.media_encryption ?? current.media_encryption, set.sip_outbound_transport, set.sip_termination_uri, false, issues)
  }
  if (issues.length) throw validation(issues)
  if (body.label !== undefined) set.label = body.label.trim() || displayE164(current.e164)
  if (body.inboundAgentId !== undefined) set.inbound_agent_id = body.inboundAgentId
  if (body.whenBusy !== undefined) set.when_busy = body.whenBusy
  if (body.outboundAgentId !== undefined) set.outbound_agent_id = body.outboundAgentId
  const inbound = set.inbound_agent_id === undefined ? current.inbound_agent_id : set.inbound_agent_id
  const outbound = set.outbound_agent_id === undefined ? current.outbound_agent_id : set.outbound_agent_id
  set.status = nextStatus(current.status, { hasAgent: inbound !== null || outbound !== null, sipSettingsChanged: sipChanged })
  if (set.status !== 'error') set.status_reason = null
  set.updated_at = nowIso()
  const row = await repo.updateNumber(deps.db, id, set)
  if (!row) throw notFound('phone number')
  return toPhoneNumber(row)
}

/** Releases the number: at the carrier first for bought numbers (already gone there is fine), then here. */
export async function releaseNumber(deps: NumbersDeps, workspaceId: string, id: string): Promise<void> {
  const current = await repo.findLiveNumber(deps.db, workspaceId, id)
  if (!current) throw notFound('phone number')
  if (current.provider === 'carrier' && current.carrier_sid) {
    const client = await carrierClient(deps.db, deps.box, deps.config, workspaceId)
    try {
      await client.releaseNumber(current.carrier_sid)
    } catch (err) {
      if (!(err instanceof CarrierError && err.status === 404)) throw err instanceof CarrierError ? fromCarrier(err) : err
    }
  }
  const at = nowIso()
  await repo.updateNumber(deps.db, id, {
    status: 'released',
    status_reason: null,
    released_at: at,
    updated_at: at,
    inbound_agent_id: null,
    outbound_agent_id: null,
    sip_password_enc: null,
  })
}

/** For the SIP layer: a trunk's health changed (OPTIONS/REGISTER failing or recovering). */
export async function reportTrunkHealth(db: Db, id: string, health: { ok: true } | { ok: false; reason: string }): Promise<PhoneNumber | undefined> {
  const current = await repo.findLiveNumberById(db, id)
  if (!current) return undefined
  const hasAgent = current.inbound_agent_id !== null || current.outbound_agent_id !== null
  const status = nextStatus(current.status, { hasAgent, trunk: health.ok ? 'ok' : 'failed' })
  const row = await repo.updateNumber(db, id, { status, status_reason: health.ok ? null : health.reason, updated_at: nowIso() })
  return row && toPhoneNumber(row)
}
