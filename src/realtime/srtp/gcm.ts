// AEAD_AES_128_GCM (RFC 7714): a 16-byte tag, the RTP header as associated data (section 8),
// and for SRTCP the header and SSRC plus the E flag and index word as associated data, with the
// tag before that word (section 9). The cipher is libcrypto's (openssl.ts) where it loads, else
// GcmStream below on the runtime's crypto, whose GCM ciphers take their IV at creation, so each
// packet has its own; creating it from a KeyObject and with the default 16-byte tag is the
// cheapest form (0.36 against 0.45 us with a raw key and authTagLength).
import { createCipheriv, createDecipheriv, createSecretKey, type KeyObject } from 'node:crypto'
import type { SessionKeys } from './keys.ts'
import { ViewCache, writeUint32, type PacketTransform, type SrtpCrypto } from './transform.ts'

const TAG = 16
const SRTCP_INDEX_BYTES = 4

/** One direction's AES-128-GCM: the runtime's crypto here, libcrypto's in openssl.ts. */
export interface GcmCipher {
  readonly engine: SrtpCrypto
  /** Encrypts [from, end) in place with `aad` (buf[0, aad) when a number) and writes the tag at `end`. */
  seal(buf: Uint8Array, from: number, end: number, iv: Uint8Array, aad: Uint8Array | number): void
  /** Checks the tag at `end` and decrypts [from, end) in place; false, and `buf` untouched, when the tag is wrong. */
  open(buf: Uint8Array, from: number, end: number, iv: Uint8Array, aad: Uint8Array | number): boolean
}

export type GcmCipherFactory = (keys: SessionKeys) => GcmCipher

/** The 12-byte IVs of one direction: salt ^ (00 00 || SSRC || high || low), where high || low is 48 bits. */
class GcmIv {
  readonly #salt: Uint8Array
  readonly #iv = new Uint8Array(12)

  constructor(salt: Uint8Array) {
    this.#salt = salt.slice()
  }

  /** Valid until the next call. */
  iv(ssrc: number, high: number, low: number): Uint8Array {
    const iv = this.#iv
    iv.set(this.#salt)
    iv[2]! ^= ssrc >>> 24
    iv[3]! ^= (ssrc >>> 16) & 0xff
    iv[4]! ^= (ssrc >>> 8) & 0xff
    iv[5]! ^= ssrc & 0xff
    iv[6]! ^= (high >>> 8) & 0xff
    iv[7]! ^= high & 0xff
    iv[8]! ^= low >>> 24
    iv[9]! ^= (low >>> 16) & 0xff
    iv[10]! ^= (low >>> 8) & 0xff
    iv[11]! ^= low & 0xff
    return iv
  }
}

class GcmStream implements GcmCipher {
  readonly engine = 'builtin'
  readonly #key: KeyObject
  readonly #tag = new ViewCache()
  #scratch = new Uint8Array(0)
  readonly #aad = new ViewCache()
  readonly #data = new ViewCache()

  constructor(keys: SessionKeys) {
    this.#key = createSecretKey(keys.encryption)
  }

  /** Encrypts [from, end) in place with `aad` (buf[0, aadEnd) when not given) and writes the tag at `end`. */
  seal(buf: Uint8Array, from: number, end: number, iv: Uint8Array, aad: Uint8Array | number): void {
    const cipher = createCipheriv('aes-128-gcm', this.#key, iv)
    cipher.setAAD(typeof aad === 'number' ? this.#aad.get(buf, 0, aad) : aad)
    const sealed = cipher.update(this.#data.get(buf, from, end))
    cipher.final()
    buf.set(sealed, from)
    const tag = cipher.getAuthTag()
    for (let i = 0; i < TAG; i++) buf[end + i] = tag[i]!
  }

  /**
   * Checks the tag at `end` and decrypts [from, end) in place; false, and `buf` untouched, when the
   * tag is wrong. The cipher reads a copy: each received datagram is a new buffer, and views of it
   * cost more than copying it whole.
   */
  open(buf: Uint8Array, from: number, end: number, iv: Uint8Array, aad: Uint8Array | number): boolean {
    if (this.#scratch.length < buf.length) this.#scratch = new Uint8Array(Math.max(buf.length, 256))
    const scratch = this.#scratch
    scratch.set(buf)
    const decipher = createDecipheriv('aes-128-gcm', this.#key, iv)
    decipher.setAAD(typeof aad === 'number' ? this.#aad.get(scratch, 0, aad) : aad)
    decipher.setAuthTag(this.#tag.get(scratch, end, end + TAG))
    const opened = decipher.update(this.#data.get(scratch, from, end))
    try {
      decipher.final()
    } catch {
      return false
    }
    buf.set(opened, from)
    return true
  }
}

export class GcmTransform implements PacketTransform {
  readonly rtpTagLength = TAG
  readonly rtcpTrailerLength = TAG + SRTCP_INDEX_BYTES
  readonly engine: SrtpCrypto
  readonly #rtp: GcmCipher
  readonly #rtcp: GcmCipher
  readonly #rtpIv: GcmIv
  readonly #rtcpIv: GcmIv
  readonly #rtcpAad = new Uint8Array(8 + SRTCP_INDEX_BYTES)

  constructor(rtp: SessionKeys, rtcp: SessionKeys, cipher: GcmCipherFactory = (keys) => new GcmStream(keys)) {
    this.#rtp = cipher(rtp)
    this.#rtcp = cipher(rtcp)
    this.engine = this.#rtp.engine
    this.#rtpIv = new GcmIv(rtp.salt)
    this.#rtcpIv = new GcmIv(rtcp.salt)
  }

  sealRtp(buf: Uint8Array, headerLength: number, end: number, ssrc: number, index: number): void {
    const iv = this.#rtpIv.iv(ssrc, Math.floor(index / 0x100000000), index >>> 0)
    this.#rtp.seal(buf, headerLength, end, iv, headerLength)
  }

  openRtp(buf: Uint8Array, headerLength: number, end: number, ssrc: number, index: number): boolean {
    const iv = this.#rtpIv.iv(ssrc, Math.floor(index / 0x100000000), index >>> 0)
    return this.#rtp.open(buf, headerLength, end, iv, headerLength)
  }

  sealRtcp(buf: Uint8Array, end: number, ssrc: number, index: number): number {
    const word = (0x80000000 | index) >>> 0
    const aad = this.#rtcpAad
    for (let i = 0; i < 8; i++) aad[i] = buf[i]!
    writeUint32(aad, 8, word)
    this.#rtcp.seal(buf, 8, end, this.#rtcpIv.iv(ssrc, 0, index), aad)
    writeUint32(buf, end + TAG, word)
    return end + this.rtcpTrailerLength
  }

  srtcpIndexAt(length: number): number {
    return length - SRTCP_INDEX_BYTES
  }

  openRtcp(buf: Uint8Array, length: number, ssrc: number, index: number, encrypted: boolean): number {
    const wordAt = length - SRTCP_INDEX_BYTES
    const end = wordAt - TAG
    const iv = this.#rtcpIv.iv(ssrc, 0, index)
    if (!encrypted) {
      // Unencrypted SRTCP authenticates the whole RTCP packet as associated data (RFC 7714 section 9).
      const aad = new Uint8Array(end + SRTCP_INDEX_BYTES)
      aad.set(buf.subarray(0, end))
      aad.set(buf.subarray(wordAt, length), end)
      return this.#rtcp.open(buf, end, end, iv, aad) ? end : -1
    }
    const aad = this.#rtcpAad
    for (let i = 0; i < 8; i++) aad[i] = buf[i]!
    for (let i = 0; i < SRTCP_INDEX_BYTES; i++) aad[8 + i] = buf[wordAt + i]!
    return this.#rtcp.open(buf, 8, end, iv, aad) ? end : -1
  }
}
