// Which inbound INVITEs we accept: the numbers table decides, behind this small contract.
import type { Credentials } from './digest.ts'
import type { Remote } from './transport.ts'

export type InboundDecision =
  /** With `credentials` the caller must pass a digest challenge before the call is offered. */
  | { accept: true; number: string; context?: unknown; credentials?: Credentials }
  /** `why` is for the operator's log only: the caller is answered alike either way. */
  | { accept: false; status: 403 | 404; why?: 'unknown_number' | 'not_trunk' }

export interface InboundQuery {
  /** Unescaped user parts of the Request-URI and of the To header, in that order (may repeat). */
  users: string[]
  source: Remote
}

/**
 * Decides whether an inbound INVITE reaches one of our numbers from that number's trunk.
 * An implementation must answer "no such number" and "a number of ours, but not from its trunk"
 * the same way, so a caller cannot probe which numbers exist.
 */
export interface NumberDirectory {
  resolveInbound(q: InboundQuery): InboundDecision | Promise<InboundDecision>
}

export interface DirectoryEntry {
  number: string
  /** Source addresses allowed to deliver calls for this number (the trunk's hosts). */
  trunkSources: string[]
  /** When set, any source may call the number after answering a digest challenge. */
  credentials?: Credentials
  context?: unknown
}

const digits = (s: string) => s.replace(/[^0-9]/g, '')
const PHONE = /^\+?[0-9\-(). ]+$/

/** Same number when both look like phone numbers and their digits agree; otherwise exact text. */
export function sameNumber(a: string, b: string): boolean {
  return PHONE.test(a) && PHONE.test(b) ? digits(a) !== '' && digits(a) === digits(b) : a === b
}
