import type { Db } from '../../platform/db/index.ts'
import type { SecretBox } from '../../platform/secrets/index.ts'
import { normalizeE164 } from './e164.ts'
import { passwordContext } from './numbers.service.ts'
import * as repo from './numbers.repository.ts'
import type { NumberMediaEncryption, NumberProvider, NumberStatus, NumberWhenBusy, PhoneNumberTable, SipTransport } from './numbers.table.ts'

/** What the SIP layer needs to route a call on a number, credentials decrypted. Never sent over HTTP. */
export interface NumberRoute {
  id: string
  workspaceId: string
  e164: string
  provider: NumberProvider
  status: NumberStatus
  inboundAgentId: string | null
  outboundAgentId: string | null
  /** SRTP for this number's calls: none, optional (offered, plain accepted) or required (SRTP only, over TLS). Carrier numbers: none. */
  mediaEncryption: NumberMediaEncryption
  /** A call that cannot be carried now: refused (503) or told the lines are busy. */
  whenBusy: NumberWhenBusy
  sip: { terminationUri: string; username: string | null; password: string | null; transport: SipTransport; register: boolean } | null
}

function toRoute(box: SecretBox, r: PhoneNumberTable): NumberRoute {
  return {
    id: r.id,
    workspaceId: r.workspace_id,
    e164: r.e164,
    provider: r.provider,
    status: r.status,
    inboundAgentId: r.inbound_agent_id,
    outboundAgentId: r.outbound_agent_id,
    mediaEncryption: r.media_encryption,
    whenBusy: r.when_busy ?? 'refuse',
    sip: r.sip_termination_uri
      ? {
          terminationUri: r.sip_termination_uri,
          username: r.sip_username,
          password: r.sip_password_enc ? box.decrypt(r.sip_password_enc, passwordContext(r.id)) : null,
          transport: r.sip_outbound_transport,
          register: r.sip_register === 1,
        }
      : null,
  }
}

/**
 * Live numbers with this E.164 in any workspace, oldest first: since one workspace at a time owns
 * an e164, at most one. Accepts what a Request-URI carries (`14155550123`, `+1 415 555 0123`).
 */
export async function findNumbersByE164(db: Db, box: SecretBox, raw: string): Promise<NumberRoute[]> {
  const e164 = normalizeE164(raw)
  if (!e164) return []
  return (await repo.findLiveByE164AnyWorkspace(db, e164)).map((r) => toRoute(box, r))
}

/** The live number with this E.164 (its one owner), for routing an inbound call. */
export async function findNumberByE164(db: Db, box: SecretBox, raw: string): Promise<NumberRoute | undefined> {
  const e164 = normalizeE164(raw)
  const row = e164 ? await repo.findLiveOwnerOfE164(db, e164) : undefined
  return row && toRoute(box, row)
}

export async function getNumberRoute(db: Db, box: SecretBox, id: string): Promise<NumberRoute | undefined> {
  const row = await repo.findLiveNumberById(db, id)
  return row && toRoute(box, row)
}

/** Live SIP numbers of every workspace that ask to be registered with their trunk. */
export async function findRegisteringNumbers(db: Db, box: SecretBox): Promise<NumberRoute[]> {
  return (await repo.findLiveRegistering(db)).map((r) => toRoute(box, r))
}
