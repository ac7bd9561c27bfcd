// SDES `a=crypto` attributes (RFC 4568 sections 4, 6 and 9.1): pure parsing and formatting.
//   a=crypto:<tag> <crypto-suite> inline:<key||salt>[|<lifetime>][|<MKI>:<length>][;inline:...] [<session-params>]
// The parsed inline key sits in a private field, so logging or serialising a parsed attribute
// does not write the key out.
import { isSrtpSuite } from './keys.ts'

/** A master key identifier: `value` written in `length` bytes before each packet's tag. */
export interface Mki {
  value: bigint
  length: number
}

/** One key of an attribute. The key itself is a getter over a private field. */
export class SdesKey {
  readonly #inline: string
  /** Packets the key may protect, from `2^n` or a decimal count. */
  readonly lifetime?: number
  readonly mki?: Mki

  constructor(inline: string, lifetime?: number, mki?: Mki) {
    this.#inline = inline
    if (lifetime !== undefined) this.lifetime = lifetime
    if (mki) this.mki = mki
  }

  /** The base64 key || salt. */
  get inline(): string {
    return this.#inline
  }
}

export interface SdesCrypto {
  tag: number
  /** The suite as written; it may be one this module does not implement (see isSrtpSuite). */
  suite: string
  keys: SdesKey[]
  sessionParams: string[]
}

const TAG = /^\d{1,9}$/
const SUITE = /^[A-Za-z0-9_]+$/
const KEY_SALT = /^[A-Za-z0-9+/]+={0,2}$/
const LIFETIME = /^(?:2\^(\d{1,2})|(\d{1,20}))$/
const MKI = /^(\d{1,128}):(\d{1,3})$/

/** One `inline:` key parameter, or undefined when it does not follow RFC 4568's grammar. */
function parseKeyParam(param: string): SdesKey | undefined {
  if (!param.startsWith('inline:')) return undefined
  const [keySalt = '', ...rest] = param.slice('inline:'.length).split('|')
  if (!KEY_SALT.test(keySalt) || rest.length > 2) return undefined
  let lifetime: number | undefined
  let mki: Mki | undefined
  for (const [i, part] of rest.entries()) {
    const m = MKI.exec(part)
    if (m) {
      const value = BigInt(m[1]!)
      const length = Number(m[2])
      if (mki || i !== rest.length - 1 || length < 1 || length > 128 || value >= 1n << BigInt(8 * length)) return undefined
      mki = { value, length }
      continue
    }
    const l = LIFETIME.exec(part)
    if (!l || lifetime !== undefined || i !== 0) return undefined
    lifetime = l[1] !== undefined ? 2 ** Number(l[1]) : Number(l[2])
  }
  return new SdesKey(keySalt, lifetime, mki)
}

/** The key parameters of an attribute (sdp-transform's `config` of a crypto line). */
export function parseSdesKeyParams(text: string): SdesKey[] | undefined {
  const keys = text.split(';').map(parseKeyParam)
  return keys.every((k) => k !== undefined) ? (keys as SdesKey[]) : undefined
}

/** An `a=crypto` attribute, with or without its `a=crypto:` prefix; undefined when malformed. */
export function parseSdesCrypto(line: string): SdesCrypto | undefined {
  const value = line.trim().replace(/^a=crypto:/, '')
  const [tag = '', suite = '', keyParams = '', ...sessionParams] = value.split(/[ \t]+/)
  if (!TAG.test(tag) || !SUITE.test(suite)) return undefined
  const keys = parseSdesKeyParams(keyParams)
  return keys ? { tag: Number(tag), suite, keys, sessionParams } : undefined
}

/**
 * Why an offered attribute cannot key this module's contexts, or undefined when it can: a
 * suite it implements, one key without an MKI, and no session parameter other than a zero key
 * derivation rate or a window size hint.
 */
export function unusableSdesReason(crypto: SdesCrypto): string | undefined {
  if (!isSrtpSuite(crypto.suite)) return `crypto suite ${crypto.suite} is not supported`
  if (crypto.keys.length !== 1) return `${crypto.keys.length} keys offered; only one key without an MKI is supported`
  if (crypto.keys[0]!.mki) return 'keys with an MKI are not supported'
  const other = crypto.sessionParams.find((p) => !/^(?:KDR=0|WSH=\d+)$/.test(p))
  return other ? `session parameter ${other.split('=')[0]} is not supported` : undefined
}

export interface SdesCryptoFormat {
  tag: number
  suite: string
  inlineKey: string
  lifetime?: number
  mki?: Mki
  sessionParams?: string[]
}

/** The attribute value (what follows `a=crypto:`), lifetime as 2^n when it is a power of two. */
export function formatSdesCrypto(c: SdesCryptoFormat): string {
  let key = `inline:${c.inlineKey}`
  if (c.lifetime !== undefined) {
    const n = Math.log2(c.lifetime)
    key += Number.isInteger(n) ? `|2^${n}` : `|${c.lifetime}`
  }
  if (c.mki) key += `|${c.mki.value}:${c.mki.length}`
  return [String(c.tag), c.suite, key, ...(c.sessionParams ?? [])].join(' ')
}
