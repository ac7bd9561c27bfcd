import type { MediaEncryptionSetting } from '../../platform/config/index.ts'

export type NumberProvider = 'sip' | 'carrier'
export type NumberStatus = 'unconfigured' | 'active' | 'error' | 'released'
export type NumberSource = 'connected' | 'purchased'
export type SipTransport = 'tcp' | 'udp' | 'tls'
/** none: plain RTP; optional: SRTP offered (SDES), plain accepted; required: SRTP only, over TLS signalling. */
export type NumberMediaEncryption = MediaEncryptionSetting
/** A caller the appliance cannot carry now: refused with 503 (a PBX tries elsewhere), or told the lines are busy. */
export type NumberWhenBusy = 'refuse' | 'announce'

export interface PhoneNumberTable {
  id: string
  workspace_id: string
  e164: string
  label: string
  provider: NumberProvider
  status: NumberStatus
  /** Why the status is `error` (trunk failure as reported by the SIP layer). */
  status_reason: string | null
  source: NumberSource
  inbound_agent_id: string | null
  outbound_agent_id: string | null
  sip_termination_uri: string | null
  sip_username: string | null
  /** AES-256-GCM sealed with the DATA_DIR key, bound to `phone_numbers.sip_password:<id>`. */
  sip_password_enc: string | null
  sip_outbound_transport: SipTransport
  /** 1: the appliance keeps a registration with the trunk (REGISTER) for this number. */
  sip_register: number
  /** The number's media encryption policy; set at create (MEDIA_ENCRYPTION when the API gave none), 'none' for carrier numbers. */
  media_encryption: NumberMediaEncryption
  when_busy: NumberWhenBusy
  carrier_sid: string | null
  released_at: string | null
  created_at: string
  updated_at: string
}
