// SRTP crypto suites (RFC 4568 section 6.2, RFC 7714 section 12), SDES inline keys and the
// AES-CM key derivation (RFC 3711 section 4.3, key derivation rate 0).
import { createCipheriv } from 'node:crypto'

export type SrtpSuite = 'AES_CM_128_HMAC_SHA1_80' | 'AES_CM_128_HMAC_SHA1_32' | 'AEAD_AES_128_GCM'

export interface SuiteParams {
  aead: boolean
  saltBytes: number
  rtpTagBytes: number
  /** AES_CM_128_HMAC_SHA1_32 keeps the 80-bit tag on SRTCP (RFC 5764 4.1.2's table, libsrtp). */
  rtcpTagBytes: number
}

export const SRTP_SUITES: Readonly<Record<SrtpSuite, SuiteParams>> = {
  AES_CM_128_HMAC_SHA1_80: { aead: false, saltBytes: 14, rtpTagBytes: 10, rtcpTagBytes: 10 },
  AES_CM_128_HMAC_SHA1_32: { aead: false, saltBytes: 14, rtpTagBytes: 4, rtcpTagBytes: 10 },
  AEAD_AES_128_GCM: { aead: true, saltBytes: 12, rtpTagBytes: 16, rtcpTagBytes: 16 },
}

const KEY_BYTES = 16
const AUTH_KEY_BYTES = 20

export class SrtpKeyError extends Error {}

export function isSrtpSuite(name: string): name is SrtpSuite {
  return Object.hasOwn(SRTP_SUITES, name)
}

/** A fresh master key || master salt from the CSPRNG, base64 as in an SDES `inline:` parameter. */
export function generateInlineKey(suite: SrtpSuite): string {
  const bytes = crypto.getRandomValues(new Uint8Array(KEY_BYTES + SRTP_SUITES[suite].saltBytes))
  const text = Buffer.from(bytes).toString('base64')
  bytes.fill(0)
  return text
}

export interface MasterKey {
  key: Uint8Array
  salt: Uint8Array
}

const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/

/** Splits an inline key into master key and salt; the error never quotes the key. */
export function decodeInlineKey(suite: SrtpSuite, inline: string): MasterKey {
  const want = KEY_BYTES + SRTP_SUITES[suite].saltBytes
  if (!BASE64.test(inline)) throw new SrtpKeyError(`${suite} inline key is not base64`)
  const bytes = new Uint8Array(Buffer.from(inline, 'base64'))
  if (bytes.length !== want) throw new SrtpKeyError(`${suite} inline key decodes to ${bytes.length} bytes, not ${want}`)
  return { key: bytes.subarray(0, KEY_BYTES), salt: bytes.subarray(KEY_BYTES) }
}

export interface SessionKeys {
  encryption: Uint8Array
  /** 14 bytes for AES-CM, 12 for AES-GCM. */
  salt: Uint8Array
  /** The HMAC-SHA1 key; empty for AES-GCM, which authenticates with its own tag. */
  auth: Uint8Array
}

const LABELS = { rtp: [0x00, 0x01, 0x02], rtcp: [0x03, 0x04, 0x05] } as const

/** Session keys for SRTP (`rtp`) or SRTCP (`rtcp`) from the master key, as RFC 3711 4.3.1. */
export function deriveSessionKeys(suite: SrtpSuite, master: MasterKey, stream: 'rtp' | 'rtcp'): SessionKeys {
  const { aead, saltBytes } = SRTP_SUITES[suite]
  const [encLabel, authLabel, saltLabel] = LABELS[stream]
  const prf = (label: number, length: number) => {
    // RFC 7714 section 11: the 96-bit GCM master salt is zero-padded to the PRF's 112 bits.
    const iv = new Uint8Array(16)
    iv.set(master.salt)
    iv[7]! ^= label
    return aesCmKeystream(master.key, iv, length)
  }
  return {
    encryption: prf(encLabel, KEY_BYTES),
    salt: prf(saltLabel, saltBytes),
    auth: aead ? new Uint8Array(0) : prf(authLabel, AUTH_KEY_BYTES),
  }
}

/** `length` bytes of AES-CM keystream from a 16-byte IV whose last two bytes are the block counter. */
export function aesCmKeystream(key: Uint8Array, iv: Uint8Array, length: number): Uint8Array {
  const ecb = createCipheriv('aes-128-ecb', key, null).setAutoPadding(false)
  const blocks = counterBlocks(iv, Math.ceil(length / 16), new Uint8Array(Math.ceil(length / 16) * 16))
  return new Uint8Array(ecb.update(blocks)).subarray(0, length)
}

/** Writes `count` counter blocks into `into`: the IV (its last 16 bits zero) plus block number j. */
export function counterBlocks(iv: Uint8Array, count: number, into: Uint8Array): Uint8Array {
  for (let j = 0; j < count; j++) {
    const at = j * 16
    into.set(iv, at)
    into[at + 14] = j >>> 8
    into[at + 15] = j & 0xff
  }
  return into.subarray(0, count * 16)
}
