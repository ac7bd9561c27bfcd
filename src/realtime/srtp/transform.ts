// The per-packet cryptography of one direction, behind one shape for every suite (cm.ts, gcm.ts):
// the contexts (context.ts) keep the indices and replay state, a transform only seals and opens.
// Every method works in place on a buffer with room for the trailer.

/** Whose ciphers seal and open: OpenSSL's libcrypto through FFI (openssl.ts), or the runtime's crypto module. */
export type SrtpCrypto = 'openssl' | 'builtin'

export interface PacketTransform {
  readonly engine: SrtpCrypto
  readonly rtpTagLength: number
  /** Bytes SRTCP adds after the RTCP packet: the E flag and index word and the tag. */
  readonly rtcpTrailerLength: number
  /** Encrypts bytes [headerLength, end) and writes the tag at `end`. */
  sealRtp(buf: Uint8Array, headerLength: number, end: number, ssrc: number, index: number): void
  /** Checks the tag at `end` and decrypts [headerLength, end); false when the tag is wrong. */
  openRtp(buf: Uint8Array, headerLength: number, end: number, ssrc: number, index: number): boolean
  /** Encrypts the RTCP packet [0, end) after its first 8 bytes; returns the SRTCP length. */
  sealRtcp(buf: Uint8Array, end: number, ssrc: number, index: number): number
  /** Where the E flag and SRTCP index word sits in an SRTCP packet of `length` bytes. */
  srtcpIndexAt(length: number): number
  /** Checks the tag and decrypts (when `encrypted`); the RTCP length, or -1 when the tag is wrong. */
  openRtcp(buf: Uint8Array, length: number, ssrc: number, index: number, encrypted: boolean): number
}

/**
 * The length of an RTP header (fixed part, CSRCs and extension) of a packet whose first
 * `length` bytes are RTP, or -1 when it is not version 2 or is cut short.
 */
export function rtpHeaderLength(bytes: Uint8Array, length: number): number {
  if (length < 12) return -1
  const b0 = bytes[0]!
  if (b0 >> 6 !== 2) return -1
  let end = 12 + (b0 & 0x0f) * 4
  if (b0 & 0x10) {
    if (length < end + 4) return -1
    end += 4 + ((bytes[end + 2]! << 8) | bytes[end + 3]!) * 4
  }
  return end <= length ? end : -1
}

export function readUint32(bytes: Uint8Array, at: number): number {
  return ((bytes[at]! << 24) | (bytes[at + 1]! << 16) | (bytes[at + 2]! << 8) | bytes[at + 3]!) >>> 0
}

export function writeUint32(bytes: Uint8Array, at: number, value: number): void {
  bytes[at] = value >>> 24
  bytes[at + 1] = (value >>> 16) & 0xff
  bytes[at + 2] = (value >>> 8) & 0xff
  bytes[at + 3] = value & 0xff
}

/**
 * A view of buf[from, end), kept while the same buffer and range come back: the media side seals
 * every packet of a call into one send buffer, and a new view per packet is a native allocation.
 */
export class ViewCache {
  #buf: Uint8Array | undefined
  #from = 0
  #view: Uint8Array = new Uint8Array(0)
  /** A packet found to start where the current view starts, so sealing it needs no copy. */
  #inPlace: Uint8Array | undefined

  get(buf: Uint8Array, from: number, end: number): Uint8Array {
    if (buf !== this.#buf || from !== this.#from || this.#view.length !== end - from) {
      this.#buf = buf
      this.#from = from
      this.#view = buf.subarray(from, end)
    }
    return this.#view
  }

  /** Whether `packet` starts where `view` (from get) does: the media side builds each packet in its send buffer. */
  inPlace(packet: Uint8Array, view: Uint8Array): boolean {
    if (packet === this.#inPlace && view === this.#view) return true
    if (packet.byteOffset !== view.byteOffset || packet.buffer !== view.buffer) return false
    if (view === this.#view) this.#inPlace = packet
    return true
  }
}
