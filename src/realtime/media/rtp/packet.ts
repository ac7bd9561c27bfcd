// RTP packets (RFC 3550 section 5.1). Parsing is zero-copy: payload, extension and padding are
// views into the received bytes; serialize(parse(b)) gives b back.

export class RtpParseError extends Error {}

export interface RtpHeaderExtension {
  profile: number
  /** The extension body (a multiple of 4 bytes). */
  data: Uint8Array
}

export interface RtpPacket {
  marker: boolean
  payloadType: number
  sequenceNumber: number
  timestamp: number
  ssrc: number
  csrcs: readonly number[]
  extension?: RtpHeaderExtension
  payload: Uint8Array
  /** Padding bytes including the final count byte; empty when the P bit is clear. */
  padding?: Uint8Array
}

const NO_CSRCS: readonly number[] = Object.freeze([])
const u16 = (b: Uint8Array, at: number) => (b[at]! << 8) | b[at + 1]!
const u32 = (b: Uint8Array, at: number) => ((b[at]! << 24) | (b[at + 1]! << 16) | (b[at + 2]! << 8) | b[at + 3]!) >>> 0

/**
 * The RTP packet in bytes[0, length) (all of `bytes` by default); payload and padding are views into it.
 * The header is read byte by byte: a DataView would be one more object per received packet.
 */
export function parseRtp(bytes: Uint8Array, length = bytes.length): RtpPacket {
  if (length < 12) throw new RtpParseError(`RTP packet too short (${length} bytes)`)
  const b0 = bytes[0]!
  if (b0 >> 6 !== 2) throw new RtpParseError(`RTP version ${b0 >> 6} is not 2`)
  const cc = b0 & 0x0f
  let offset = 12 + cc * 4
  if (length < offset) throw new RtpParseError('RTP packet shorter than its CSRC list')
  let csrcs = NO_CSRCS
  if (cc > 0) {
    const list: number[] = []
    for (let i = 0; i < cc; i++) list.push(u32(bytes, 12 + i * 4))
    csrcs = list
  }
  let extension: RtpHeaderExtension | undefined
  if (b0 & 0x10) {
    if (length < offset + 4) throw new RtpParseError('RTP header extension truncated')
    const profile = u16(bytes, offset)
    const words = u16(bytes, offset + 2)
    const end = offset + 4 + words * 4
    if (length < end) throw new RtpParseError('RTP header extension truncated')
    extension = { profile, data: bytes.subarray(offset + 4, end) }
    offset = end
  }
  let end = length
  let padding: Uint8Array | undefined
  if (b0 & 0x20) {
    const count = bytes[length - 1]!
    if (count === 0 || offset + count > length) throw new RtpParseError(`bad RTP padding length ${count}`)
    end -= count
    padding = bytes.subarray(end)
  }
  const b1 = bytes[1]!
  return {
    marker: (b1 & 0x80) !== 0,
    payloadType: b1 & 0x7f,
    sequenceNumber: u16(bytes, 2),
    timestamp: u32(bytes, 4),
    ssrc: u32(bytes, 8),
    csrcs,
    extension,
    payload: bytes.subarray(offset, end),
    padding,
  }
}

export function rtpLength(p: RtpPacket): number {
  return 12 + p.csrcs.length * 4 + (p.extension ? 4 + p.extension.data.length : 0) + p.payload.length + (p.padding?.length ?? 0)
}

/** Writes the packet into `out` (allocated when absent) and returns the bytes written. */
export function serializeRtp(p: RtpPacket, out?: Uint8Array): Uint8Array {
  const len = rtpLength(p)
  const bytes = out && out.length >= len ? out.subarray(0, len) : new Uint8Array(len)
  if (p.csrcs.length > 15) throw new RangeError('at most 15 CSRCs')
  if (p.extension && p.extension.data.length % 4 !== 0) throw new RangeError('RTP extension length must be a multiple of 4')
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  bytes[0] = 0x80 | (p.padding?.length ? 0x20 : 0) | (p.extension ? 0x10 : 0) | p.csrcs.length
  bytes[1] = (p.marker ? 0x80 : 0) | (p.payloadType & 0x7f)
  view.setUint16(2, p.sequenceNumber & 0xffff)
  view.setUint32(4, p.timestamp >>> 0)
  view.setUint32(8, p.ssrc >>> 0)
  let offset = 12
  for (const c of p.csrcs) {
    view.setUint32(offset, c >>> 0)
    offset += 4
  }
  if (p.extension) {
    view.setUint16(offset, p.extension.profile)
    view.setUint16(offset + 2, p.extension.data.length / 4)
    bytes.set(p.extension.data, offset + 4)
    offset += 4 + p.extension.data.length
  }
  bytes.set(p.payload, offset)
  offset += p.payload.length
  if (p.padding?.length) bytes.set(p.padding, offset)
  return bytes
}

/** True when the first byte pair looks like RTCP (RFC 5761 section 4: PT 192..223 on a muxed port). */
export function looksLikeRtcp(bytes: Uint8Array): boolean {
  return bytes.length >= 8 && bytes[0]! >> 6 === 2 && bytes[1]! >= 192 && bytes[1]! <= 223
}
