// SRTP and SRTCP through libsrtp 2 (the Debian package libsrtp2-1), called with bun:ffi: one
// native call per packet, where the built-in transform (context.ts) makes several calls into the
// runtime's crypto and allocates per packet. Same shape and refusals as SrtpOutbound/SrtpInbound.
// libsrtp keeps the indices, rollover counters and replay windows; each context here owns one
// libsrtp session (a template stream per direction, streams made per SSRC as packets arrive).
import { dlopen, FFIType, ptr as addressOf, type Pointer } from 'bun:ffi'
import { decodeInlineKey, SRTP_SUITES, type SrtpSuite } from '../../src/realtime/srtp/keys.ts'
import { replayWindowSize } from '../../src/realtime/srtp/replay.ts'
import { rtpHeaderLength } from '../../src/realtime/srtp/transform.ts'
import type { SrtpRefusal } from '../../src/realtime/srtp/context.ts'

const LIBRARY = 'libsrtp2.so.1'
const { ptr, i32, void: none } = FFIType

const SYMBOLS = {
  srtp_init: { args: [], returns: i32 },
  srtp_create: { args: [ptr, ptr], returns: i32 },
  srtp_dealloc: { args: [ptr], returns: i32 },
  srtp_protect: { args: [ptr, ptr, ptr], returns: i32 },
  srtp_unprotect: { args: [ptr, ptr, ptr], returns: i32 },
  srtp_protect_rtcp: { args: [ptr, ptr, ptr], returns: i32 },
  srtp_unprotect_rtcp: { args: [ptr, ptr, ptr], returns: i32 },
  // AES_CM_128_HMAC_SHA1_80 is libsrtp's default (its _80 setter is a macro, not a symbol)
  srtp_crypto_policy_set_rtp_default: { args: [ptr], returns: none },
  srtp_crypto_policy_set_rtcp_default: { args: [ptr], returns: none },
  srtp_crypto_policy_set_aes_cm_128_hmac_sha1_32: { args: [ptr], returns: none },
  srtp_crypto_policy_set_aes_gcm_128_16_auth: { args: [ptr], returns: none },
} as const

type Library = ReturnType<typeof dlopen<typeof SYMBOLS>>['symbols']

// srtp_policy_t of libsrtp 2.x on a 64-bit ABI (checked against srtp2/srtp.h with offsetof).
const POLICY_BYTES = 128
const AT_SSRC_TYPE = 0
const AT_RTP = 8
const AT_RTCP = 32
const AT_KEY = 56
const AT_WINDOW = 88
const AT_ALLOW_REPEAT_TX = 96
const SSRC_ANY_INBOUND = 2
const SSRC_ANY_OUTBOUND = 3
const STATUS_AUTH_FAIL = 7
const STATUS_REPLAY_FAIL = 9
const STATUS_REPLAY_OLD = 10
const RTCP_HEADER = 8

let library: Library | null | undefined

/** libsrtp's functions, loaded and initialised once per thread; null when the library is not installed. */
export function libsrtp(): Library | null {
  if (library !== undefined) return library
  try {
    if (process.arch !== 'x64' && process.arch !== 'arm64') throw new Error(`no srtp_policy_t layout for ${process.arch}`)
    const lib = dlopen(LIBRARY, SYMBOLS).symbols
    const status = lib.srtp_init()
    if (status !== 0) throw new Error(`srtp_init failed with status ${status}`)
    library = lib
  } catch {
    library = null
  }
  return library
}

const sessions = new FinalizationRegistry<{ lib: Library; session: Pointer }>(({ lib, session }) => lib.srtp_dealloc(session))

/** A libsrtp session for one direction of one suite and inline key; the key bytes are wiped once it holds them. */
class Session {
  readonly lib: Library
  #session: Pointer | null
  readonly length = new Int32Array(1)

  constructor(lib: Library, suite: SrtpSuite, inlineKey: string, inbound: boolean, window: number) {
    this.lib = lib
    const master = decodeInlineKey(suite, inlineKey)
    const key = new Uint8Array(master.key.length + master.salt.length)
    key.set(master.key)
    key.set(master.salt, master.key.length)
    master.key.fill(0)
    master.salt.fill(0)
    const policy = new Uint8Array(POLICY_BYTES)
    const view = new DataView(policy.buffer)
    view.setInt32(AT_SSRC_TYPE, inbound ? SSRC_ANY_INBOUND : SSRC_ANY_OUTBOUND, true)
    const rtp = policy.subarray(AT_RTP)
    const rtcp = policy.subarray(AT_RTCP)
    if (SRTP_SUITES[suite].aead) {
      lib.srtp_crypto_policy_set_aes_gcm_128_16_auth(rtp)
      lib.srtp_crypto_policy_set_aes_gcm_128_16_auth(rtcp)
    } else {
      if (suite === 'AES_CM_128_HMAC_SHA1_32') lib.srtp_crypto_policy_set_aes_cm_128_hmac_sha1_32(rtp)
      else lib.srtp_crypto_policy_set_rtp_default(rtp)
      lib.srtp_crypto_policy_set_rtcp_default(rtcp) // SRTCP keeps the 80-bit tag with _32
    }
    const out = new BigUint64Array(1)
    try {
      view.setBigUint64(AT_KEY, BigInt(addressOf(key)), true)
      view.setBigUint64(AT_WINDOW, BigInt(window), true)
      view.setInt32(AT_ALLOW_REPEAT_TX, 1, true)
      const status = lib.srtp_create(out, policy)
      if (status !== 0) throw new Error(`srtp_create failed with status ${status}`)
    } finally {
      key.fill(0)
    }
    this.#session = Number(out[0]) as Pointer
    sessions.register(this, { lib, session: this.#session }, this)
  }

  get handle(): Pointer | null {
    return this.#session
  }

  dispose(): void {
    if (!this.#session) return
    sessions.unregister(this)
    this.lib.srtp_dealloc(this.#session)
    this.#session = null
  }
}

/** `packet` in `out` (or a new buffer) with room for `room` bytes. */
function workBuffer(packet: Uint8Array, room: number, out: Uint8Array | undefined): Uint8Array {
  if (out && out.length >= room) {
    if (out.buffer !== packet.buffer || out.byteOffset !== packet.byteOffset) out.set(packet)
    return out
  }
  const buf = new Uint8Array(room)
  buf.set(packet)
  return buf
}

export class LibsrtpOutbound {
  readonly suite: SrtpSuite
  readonly #session: Session
  readonly #rtpTag: number
  readonly #rtcpTrailer: number

  constructor(lib: Library, suite: SrtpSuite, inlineKey: string) {
    this.suite = suite
    this.#session = new Session(lib, suite, inlineKey, false, 128)
    this.#rtpTag = SRTP_SUITES[suite].rtpTagBytes
    this.#rtcpTrailer = SRTP_SUITES[suite].rtcpTagBytes + 4
  }

  protectRtp(packet: Uint8Array, out?: Uint8Array): Uint8Array | 'malformed' {
    const length = packet.length
    if (rtpHeaderLength(packet, length) < 0 || !this.#session.handle) return 'malformed'
    const buf = workBuffer(packet, length + this.#rtpTag, out)
    const s = this.#session
    s.length[0] = length
    if (s.lib.srtp_protect(s.handle, buf, s.length) !== 0) return 'malformed'
    return buf.length === s.length[0] ? buf : buf.subarray(0, s.length[0])
  }

  protectRtcp(packet: Uint8Array, out?: Uint8Array): Uint8Array | 'malformed' {
    const length = packet.length
    if (length < RTCP_HEADER || packet[0]! >> 6 !== 2 || !this.#session.handle) return 'malformed'
    const buf = workBuffer(packet, length + this.#rtcpTrailer, out)
    const s = this.#session
    s.length[0] = length
    if (s.lib.srtp_protect_rtcp(s.handle, buf, s.length) !== 0) return 'malformed'
    return buf.subarray(0, s.length[0])
  }

  dispose(): void {
    this.#session.dispose()
  }
}

export class LibsrtpInbound {
  readonly suite: SrtpSuite
  authFailures = 0
  replays = 0
  malformed = 0
  readonly #session: Session
  readonly #rtpTag: number
  readonly #rtcpTrailer: number

  constructor(lib: Library, suite: SrtpSuite, inlineKey: string, options: { replayWindow?: number } = {}) {
    this.suite = suite
    this.#session = new Session(lib, suite, inlineKey, true, replayWindowSize(options.replayWindow))
    this.#rtpTag = SRTP_SUITES[suite].rtpTagBytes
    this.#rtcpTrailer = SRTP_SUITES[suite].rtcpTagBytes + 4
  }

  unprotectRtp(packet: Uint8Array, out?: Uint8Array): Uint8Array | SrtpRefusal {
    const buf = workBuffer(packet, packet.length, out)
    const length = this.#open(buf, packet.length)
    return typeof length === 'number' ? buf.subarray(0, length) : length
  }

  unprotectRtpInPlace(packet: Uint8Array): number | SrtpRefusal {
    return this.#open(packet, packet.length)
  }

  #open(buf: Uint8Array, length: number): number | SrtpRefusal {
    if (rtpHeaderLength(buf, length - this.#rtpTag) < 0 || !this.#session.handle) return this.#refuse('malformed')
    const s = this.#session
    s.length[0] = length
    const status = s.lib.srtp_unprotect(s.handle, buf, s.length)
    return status === 0 ? s.length[0]! : this.#refuse(refusal(status))
  }

  unprotectRtcp(packet: Uint8Array, out?: Uint8Array): Uint8Array | SrtpRefusal {
    const length = packet.length
    if (length < RTCP_HEADER + this.#rtcpTrailer || packet[0]! >> 6 !== 2 || !this.#session.handle) return this.#refuse('malformed')
    const buf = workBuffer(packet, length, out)
    const s = this.#session
    s.length[0] = length
    const status = s.lib.srtp_unprotect_rtcp(s.handle, buf, s.length)
    return status === 0 ? buf.subarray(0, s.length[0]) : this.#refuse(refusal(status))
  }

  dispose(): void {
    this.#session.dispose()
  }

  #refuse(why: SrtpRefusal): SrtpRefusal {
    if (why === 'auth') this.authFailures++
    else if (why === 'replay') this.replays++
    else this.malformed++
    return why
  }
}

function refusal(status: number): SrtpRefusal {
  if (status === STATUS_AUTH_FAIL) return 'auth'
  if (status === STATUS_REPLAY_FAIL || status === STATUS_REPLAY_OLD) return 'replay'
  return 'malformed'
}
