// SDES key exchange in SDP offer/answer (RFC 4568) for the one audio stream offer-answer.ts
// negotiates: the per-number policy, the a=crypto lines of each m= section, which offered line
// we accept, and the keys both sides agreed. Pure: no I/O, and no key ever reaches a log line.
//
// Keys live in private fields of small classes (OfferedSrtp, NegotiatedSrtp): JSON.stringify
// (and so pino), util.inspect, Bun.inspect, spreading and Object.entries show the suite only.
// Private fields do not survive a structured clone (a call worker's postMessage) either: send
// media across a thread with toMediaWire and rebuild it on the other side with fromMediaWire.
import { decodeInlineKey, isSrtpSuite, parseSdesCrypto, unusableSdesReason, type SdesCrypto, type SrtpSuite } from '../../srtp/index.ts'

/**
 * Media encryption of a call:
 * - `none`: plain RTP/AVP offers; RTP/SAVP(F) offers are refused (488), crypto lines on RTP/AVP ignored.
 * - `optional`: best-effort SDES (Asterisk's media_encryption_optimistic): offers carry a=crypto on
 *   RTP/AVP; SRTP when the peer keys it, plain RTP when it does not.
 * - `required`: RTP/SAVP offers, SRTP answers only; a plain offer or answer is refused with 488.
 */
export type MediaEncryption = 'none' | 'optional' | 'required'

/** The suites we offer, most wanted first: the widely interoperable 80-bit tag first. */
export const DEFAULT_SRTP_SUITES: readonly SrtpSuite[] = ['AES_CM_128_HMAC_SHA1_80', 'AES_CM_128_HMAC_SHA1_32', 'AEAD_AES_128_GCM']

const INSPECT = Symbol.for('nodejs.util.inspect.custom')

/**
 * The SRTP an offer/answer agreed: the suite, our key (`sendKey`, the one in our a=crypto, which
 * protects what we send) and the peer's (`receiveKey`, which unprotects what it sends). The keys
 * are getters over private fields: serialising or inspecting this object shows the suite only.
 */
export class NegotiatedSrtp {
  readonly suite: SrtpSuite
  readonly #sendKey: string
  readonly #receiveKey: string

  constructor(suite: SrtpSuite, sendKey: string, receiveKey: string) {
    this.suite = suite
    this.#sendKey = sendKey
    this.#receiveKey = receiveKey
  }

  /** Our base64 master key || salt. */
  get sendKey(): string {
    return this.#sendKey
  }

  /** The peer's base64 master key || salt. */
  get receiveKey(): string {
    return this.#receiveKey
  }

  toJSON(): { suite: SrtpSuite } {
    return { suite: this.suite }
  }

  [INSPECT](): string {
    return `NegotiatedSrtp { suite: '${this.suite}', keys: [hidden] }`
  }
}

interface OfferedCrypto {
  tag: number
  suite: SrtpSuite
  key: string
}

/** The a=crypto lines of our offer, kept to read the answer with; the keys are private. */
export class OfferedSrtp {
  readonly #offered: readonly OfferedCrypto[]

  constructor(offered: readonly OfferedCrypto[]) {
    this.#offered = offered.map((c) => ({ ...c }))
  }

  /** Our fresh keys, one per suite, tags 1..n. */
  static generate(suites: readonly SrtpSuite[], generate: (suite: SrtpSuite) => string): OfferedSrtp {
    return new OfferedSrtp(suites.map((suite, i) => ({ tag: i + 1, suite, key: generate(suite) })))
  }

  /** Tag and suite of each line offered, in order. */
  get lines(): { tag: number; suite: SrtpSuite }[] {
    return this.#offered.map(({ tag, suite }) => ({ tag, suite }))
  }

  /** Our key of the line with this tag, when it was offered with this suite. */
  keyFor(tag: number, suite: string): string | undefined {
    return this.#offered.find((c) => c.tag === tag && c.suite === suite)?.key
  }

  toJSON(): { lines: { tag: number; suite: SrtpSuite }[] } {
    return { lines: this.lines }
  }

  [INSPECT](): string {
    return `OfferedSrtp { suites: [${this.#offered.map((c) => `${c.tag} ${c.suite}`).join(', ')}], keys: [hidden] }`
  }
}

/** An a=crypto line read from the peer's SDP; undefined when it does not follow RFC 4568's grammar. */
export type PeerCrypto = SdesCrypto | undefined

/**
 * The a=crypto attributes of each m= section, in order (index i is the i-th m= line), read from
 * the text: sdp-transform keeps only the first session parameter of a crypto line, and a second
 * one (UNENCRYPTED_SRTP, say) must not pass unseen. Session-level crypto lines are ignored (RFC
 * 4568 defines the attribute at media level only). Lines are split as sdp-transform splits them.
 */
export function cryptoLinesByMedia(sdp: string): PeerCrypto[][] {
  const out: PeerCrypto[][] = []
  for (const line of sdp.split(/\r\n|\r|\n/)) {
    if (!/^[a-z]=/.test(line)) continue
    if (line.startsWith('m=')) out.push([])
    else if (out.length && line.startsWith('a=crypto:')) out[out.length - 1]!.push(parseSdesCrypto(line))
  }
  return out
}

/** A suite name from the peer, fit for a message (parseSdesCrypto already limits it to [A-Za-z0-9_]). */
const suiteName = (s: string) => (s.length > 40 ? `${s.slice(0, 40)}...` : s)

/** Why an offered or answered line cannot key our contexts, or undefined when it can; never quotes the key. */
export function unusableCryptoReason(c: PeerCrypto, allowed: readonly SrtpSuite[]): string | undefined {
  if (!c) return 'a malformed a=crypto line'
  if (!isSrtpSuite(c.suite)) return `crypto suite ${suiteName(c.suite)} is not supported`
  if (!allowed.includes(c.suite)) return `crypto suite ${c.suite} is not enabled`
  const unusable = unusableSdesReason(c)
  if (unusable) return unusable
  try {
    decodeInlineKey(c.suite as SrtpSuite, c.keys[0]!.inline)
  } catch (err) {
    return (err as Error).message
  }
  return undefined
}

export type OfferCryptoChoice = { kind: 'plain' } | { kind: 'srtp'; crypto: SdesCrypto & { suite: SrtpSuite } } | { kind: 'refuse'; reason: string }

/** RTP/SAVP or RTP/SAVPF: SRTP with SDES keys. */
export const isSecureProfile = (protocol: string) => /^RTP\/SAVPF?$/i.test(protocol)
/** RTP/AVP or RTP/AVPF. */
export const isPlainProfile = (protocol: string) => /^RTP\/AVPF?$/i.test(protocol)

/**
 * What we do with an offered audio stream under our policy, given its profile and its crypto lines.
 * The first line (in the offerer's order of preference) whose suite we enable and support, with one
 * key, no MKI and no session parameter we cannot honour, is accepted.
 *
 * Decisions:
 * - `none` refuses RTP/SAVP(F) (RFC 3264: we cannot speak the offered profile, the stream is
 *   rejected) and answers crypto lines on RTP/AVP with plain RTP (RFC 4568's best effort: the
 *   offerer then falls back to RTP).
 * - `required` accepts a best-effort RTP/AVP offer that carries a usable crypto line: the media is
 *   SRTP in both directions all the same, keyed over the same signalling, so the offer is not
 *   plain; we answer on RTP/AVP (an answer keeps the offered profile, RFC 3264 section 6). An
 *   RTP/AVP offer without one is plain and refused.
 */
export function chooseOfferCrypto(protocol: string, lines: PeerCrypto[], policy: MediaEncryption, allowed: readonly SrtpSuite[]): OfferCryptoChoice {
  const secure = isSecureProfile(protocol)
  if (policy === 'none') {
    return secure ? { kind: 'refuse', reason: `the offer is ${protocol} (SRTP) and media encryption is off for this call` } : { kind: 'plain' }
  }
  const reasons: string[] = []
  for (const c of lines) {
    const why = unusableCryptoReason(c, allowed)
    if (!why) return { kind: 'srtp', crypto: c as SdesCrypto & { suite: SrtpSuite } }
    reasons.push(c ? `${c.tag} ${suiteName(c.suite)}: ${why}` : why)
  }
  if (!secure && policy === 'optional') return { kind: 'plain' }
  if (!lines.length) {
    return {
      kind: 'refuse',
      reason: secure ? `the ${protocol} offer carries no a=crypto line (SDES keys are required; DTLS-SRTP is not supported)` : 'the offer is plain RTP (RTP/AVP without a=crypto) and this call requires SRTP',
    }
  }
  // the reasons quote the peer's suite names: a bounded list keeps the log line short
  const listed = reasons.slice(0, 4).join('; ') + (reasons.length > 4 ? `; and ${reasons.length - 4} more` : '')
  return { kind: 'refuse', reason: `no offered SDES crypto line is usable (${listed}; we support ${allowed.join(', ')})` }
}

/** An a=crypto attribute value (after `a=crypto:`) for sdp-transform's media `crypto` list. */
export function cryptoAttribute(tag: number, suite: SrtpSuite, key: string): { id: number; suite: string; config: string } {
  return { id: tag, suite, config: `inline:${key}` }
}

/** A NegotiatedMedia as it crosses to a call worker: the SRTP keys as plain fields, which a structured clone keeps. Never log one. */
export type SrtpWire = { suite: SrtpSuite; sendKey: string; receiveKey: string }

/** Plain fields of the keys for a postMessage; the result must never be logged. */
export function srtpToWire(srtp: NegotiatedSrtp): SrtpWire {
  return { suite: srtp.suite, sendKey: srtp.sendKey, receiveKey: srtp.receiveKey }
}

/**
 * The NegotiatedSrtp back from its wire form. A NegotiatedSrtp passed as is (a call in this thread)
 * is returned unchanged; one that went through a structured clone without srtpToWire arrives
 * without its keys and is refused loudly rather than keying nothing.
 */
export function srtpFromWire(wire: SrtpWire | NegotiatedSrtp): NegotiatedSrtp {
  if (wire instanceof NegotiatedSrtp) return wire
  const { suite, sendKey, receiveKey } = wire as Partial<SrtpWire>
  if (typeof suite !== 'string' || !isSrtpSuite(suite)) throw new TypeError('SRTP keys from another thread name no supported suite')
  if (typeof sendKey !== 'string' || typeof receiveKey !== 'string') {
    throw new TypeError('SRTP keys were lost crossing a thread: send the media through toMediaWire, not as it is')
  }
  return new NegotiatedSrtp(suite, sendKey, receiveKey)
}
