import { t } from 'elysia'
import { Name } from '../../platform/schema/index.ts'

export const NumberProviderSchema = t.Union([t.Literal('sip'), t.Literal('carrier')])
export const TransportSchema = t.Union([t.Literal('tcp'), t.Literal('udp'), t.Literal('tls')])
const MEDIA_ENCRYPTION_DOC =
  'SRTP for the calls of this number: none (plain RTP/AVP), optional (SRTP offered best effort, SDES crypto lines on RTP/AVP; ' +
  'plain or encrypted answers and offers accepted) or required (only RTP/SAVP offered; plain answers refused, plain inbound offers get 488). ' +
  'SDES keys travel in the SDP, so required needs sipOutboundTransport tls (422 on mediaEncryption otherwise). Carrier numbers: always none'
// t.UnionEnum, not a t.Union of literals: the OpenAPI generator turns the latter into an enum without its description.
// Without a default: UnionEnum's own (its first value) would fill an omitted field and hide MEDIA_ENCRYPTION.
export const MediaEncryptionSchema = (description: string) => t.UnionEnum(['none', 'optional', 'required'], { description, default: undefined, error: 'must be none, optional or required' })

const WhenBusySchema = t.Union([t.Literal('refuse'), t.Literal('announce')], {
  description: "a call the appliance cannot carry now (the workspace at maxConcurrentCalls, or no headroom): refuse (503 with Retry-After, so a PBX or proxy tries elsewhere; the default) or announce (answered, told all lines are busy, hung up)",
})

export const PhoneNumber = t.Object({
  id: t.String(),
  workspaceId: t.String(),
  e164: t.String(),
  label: t.String(),
  provider: NumberProviderSchema,
  status: t.Union([t.Literal('unconfigured'), t.Literal('active'), t.Literal('error'), t.Literal('released')]),
  statusReason: t.Union([t.String(), t.Null()], { description: 'why the status is error' }),
  inboundAgentId: t.Union([t.String(), t.Null()]),
  outboundAgentId: t.Union([t.String(), t.Null()]),
  source: t.Union([t.Literal('connected'), t.Literal('purchased')]),
  sipTerminationUri: t.Union([t.String(), t.Null()]),
  sipUsername: t.Union([t.String(), t.Null()]),
  hasSipPassword: t.Boolean({ description: 'the password itself is never returned' }),
  sipOutboundTransport: TransportSchema,
  sipRegister: t.Boolean({ description: 'the appliance registers the number with its trunk (REGISTER to sipTerminationUri) and keeps it fresh' }),
  mediaEncryption: MediaEncryptionSchema(MEDIA_ENCRYPTION_DOC),
  whenBusy: WhenBusySchema,
  createdAt: t.String({ format: 'date-time' }),
  updatedAt: t.String({ format: 'date-time' }),
})
export type PhoneNumber = typeof PhoneNumber.static

const nullable = <T extends ReturnType<typeof t.String>>(s: T) => t.Optional(t.Union([s, t.Null()]))

export const CreatePhoneNumberBody = t.Object({
  e164: t.String({ maxLength: 32, description: 'E.164, e.g. +14155550123' }),
  label: t.Optional(Name({ maxLength: 100 })),
  inboundAgentId: nullable(t.String({ minLength: 1, description: 'an inbound agent of this workspace to answer its calls; null or omitted: none yet' })),
  outboundAgentId: nullable(t.String({ minLength: 1, description: 'an outbound agent of this workspace to call from it; null or omitted: none yet' })),
  provider: t.Optional(NumberProviderSchema),
  sipTerminationUri: t.Optional(t.String({ maxLength: 300 })),
  sipUsername: t.Optional(t.String({ minLength: 1, maxLength: 128 })),
  sipPassword: t.Optional(t.String({ minLength: 1, maxLength: 256 })),
  sipOutboundTransport: t.Optional(TransportSchema),
  sipRegister: t.Optional(t.Boolean({ description: 'register with the trunk (default false)' })),
  mediaEncryption: t.Optional(MediaEncryptionSchema(`${MEDIA_ENCRYPTION_DOC}. sip numbers only; default: the MEDIA_ENCRYPTION setting (none unless configured)`)),
  whenBusy: t.Optional(WhenBusySchema),
})
export type CreatePhoneNumberBody = typeof CreatePhoneNumberBody.static

export const UpdatePhoneNumberBody = t.Object({
  label: t.Optional(Name({ maxLength: 100 })),
  inboundAgentId: nullable(t.String({ minLength: 1, description: 'an inbound agent of this workspace; null unassigns' })),
  outboundAgentId: nullable(t.String({ minLength: 1, description: 'an outbound agent of this workspace; null unassigns' })),
  sipTerminationUri: t.Optional(t.String({ maxLength: 300 })),
  sipUsername: nullable(t.String({ minLength: 1, maxLength: 128 })),
  sipPassword: nullable(t.String({ minLength: 1, maxLength: 256 })),
  sipOutboundTransport: t.Optional(TransportSchema),
  sipRegister: t.Optional(t.Boolean()),
  mediaEncryption: t.Optional(MediaEncryptionSchema(`${MEDIA_ENCRYPTION_DOC}. sip numbers only`)),
  whenBusy: t.Optional(WhenBusySchema),
})
export type UpdatePhoneNumberBody = typeof UpdatePhoneNumberBody.static

export const BuyNumberBody = t.Object({
  phoneNumber: t.String({ maxLength: 32, description: 'E.164, as returned by available-numbers' }),
  label: t.Optional(Name({ maxLength: 100 })),
})
