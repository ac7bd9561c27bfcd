// RTCP compound packets (RFC 3550 section 6): SR, RR, SDES, BYE parsed into fields; any other
// type (APP, feedback, XR) kept as raw bytes so serialize(parse(b)) gives b back.

import { RtpParseError } from './packet.ts'

export interface ReportBlock {
  ssrc: number
  /** Fraction lost since the previous report, 0..255 (divide by 256). */
  fractionLost: number
  /** Cumulative packets lost (signed 24-bit). */
  packetsLost: number
  highestSequence: number
  /** Interarrival jitter in timestamp units. */
  jitter: number
  /** Middle 32 bits of the NTP timestamp of the last SR received, 0 if none. */
  lastSr: number
  /** Delay since the last SR in 1/65536 s. */
  delaySinceLastSr: number
}

export interface SenderReport {
  type: 'sr'
  ssrc: number
  ntpSec: number
  ntpFrac: number
  rtpTimestamp: number
  packetCount: number
  octetCount: number
  reports: ReportBlock[]
  extension?: Uint8Array
}
export interface ReceiverReport {
  type: 'rr'
  ssrc: number
  reports: ReportBlock[]
  extension?: Uint8Array
}
export interface SdesItem {
  type: number
  text: string
}
export interface SourceDescription {
  type: 'sdes'
  chunks: { ssrc: number; items: SdesItem[] }[]
}
export interface Goodbye {
  type: 'bye'
  ssrcs: number[]
  reason?: string
}
export interface OtherRtcp {
  type: 'other'
  packetType: number
  /** The whole packet including its header. */
  raw: Uint8Array
}
export type RtcpPacket = SenderReport | ReceiverReport | SourceDescription | Goodbye | OtherRtcp

export const RTCP_SR = 200
export const RTCP_RR = 201
export const RTCP_SDES = 202
export const RTCP_BYE = 203
export const SDES_CNAME = 1

const utf8 = new TextEncoder()
const utf8d = new TextDecoder()

function parseBlocks(view: DataView, offset: number, count: number, limit: number): ReportBlock[] {
  const out: ReportBlock[] = []
  for (let i = 0; i < count; i++, offset += 24) {
    if (offset + 24 > limit) throw new RtpParseError('RTCP report block truncated')
    const lost = view.getUint32(offset + 4)
    const cumulative = lost & 0xffffff
    out.push({
      ssrc: view.getUint32(offset),
      fractionLost: lost >>> 24,
      packetsLost: cumulative & 0x800000 ? cumulative - 0x1000000 : cumulative,
      highestSequence: view.getUint32(offset + 8),
      jitter: view.getUint32(offset + 12),
      lastSr: view.getUint32(offset + 16),
      delaySinceLastSr: view.getUint32(offset + 20),
    })
  }
  return out
}

export function parseRtcp(bytes: Uint8Array): RtcpPacket[] {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  const packets: RtcpPacket[] = []
  let offset = 0
  if (bytes.length < 4) throw new RtpParseError('RTCP packet too short')
  while (offset < bytes.length) {
    if (offset + 4 > bytes.length) throw new RtpParseError('RTCP header truncated')
    const b0 = bytes[offset]!
    if (b0 >> 6 !== 2) throw new RtpParseError(`RTCP version ${b0 >> 6} is not 2`)
    const count = b0 & 0x1f
    const pt = bytes[offset + 1]!
    const end = offset + (view.getUint16(offset + 2) + 1) * 4
    if (end > bytes.length) throw new RtpParseError('RTCP length exceeds the datagram')
    if (b0 & 0x20) {
      packets.push({ type: 'other', packetType: pt, raw: bytes.subarray(offset, end) })
    } else if (pt === RTCP_SR) {
      if (end - offset < 28) throw new RtpParseError('RTCP SR truncated')
      const blocksEnd = offset + 28 + count * 24
      packets.push({
        type: 'sr',
        ssrc: view.getUint32(offset + 4),
        ntpSec: view.getUint32(offset + 8),
        ntpFrac: view.getUint32(offset + 12),
        rtpTimestamp: view.getUint32(offset + 16),
        packetCount: view.getUint32(offset + 20),
        octetCount: view.getUint32(offset + 24),
        reports: parseBlocks(view, offset + 28, count, end),
        extension: blocksEnd < end ? bytes.subarray(blocksEnd, end) : undefined,
      })
    } else if (pt === RTCP_RR) {
      if (end - offset < 8) throw new RtpParseError('RTCP RR truncated')
      const blocksEnd = offset + 8 + count * 24
      packets.push({
        type: 'rr',
        ssrc: view.getUint32(offset + 4),
        reports: parseBlocks(view, offset + 8, count, end),
        extension: blocksEnd < end ? bytes.subarray(blocksEnd, end) : undefined,
      })
    } else if (pt === RTCP_SDES) {
      packets.push(parseSdes(bytes, offset, count, end) ?? { type: 'other', packetType: pt, raw: bytes.subarray(offset, end) })
    } else if (pt === RTCP_BYE) {
      const ssrcs: number[] = []
      let p = offset + 4
      for (let i = 0; i < count; i++, p += 4) {
        if (p + 4 > end) throw new RtpParseError('RTCP BYE truncated')
        ssrcs.push(view.getUint32(p))
      }
      let reason: string | undefined
      if (p < end) {
        const len = bytes[p]!
        if (p + 1 + len > end) throw new RtpParseError('RTCP BYE reason truncated')
        reason = utf8d.decode(bytes.subarray(p + 1, p + 1 + len))
      }
      const bye: Goodbye = { type: 'bye', ssrcs, reason }
      // Keep unusual trailing bytes byte-exact by falling back to raw.
      packets.push(byteEqual(serializeRtcp([bye]), bytes.subarray(offset, end)) ? bye : { type: 'other', packetType: pt, raw: bytes.subarray(offset, end) })
    } else {
      packets.push({ type: 'other', packetType: pt, raw: bytes.subarray(offset, end) })
    }
    offset = end
  }
  return packets
}

function parseSdes(bytes: Uint8Array, offset: number, count: number, end: number): SourceDescription | null {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  const chunks: SourceDescription['chunks'] = []
  let p = offset + 4
  for (let c = 0; c < count; c++) {
    if (p + 4 > end) throw new RtpParseError('RTCP SDES truncated')
    const ssrc = view.getUint32(p)
    p += 4
    const items: SdesItem[] = []
    while (p < end && bytes[p] !== 0) {
      const type = bytes[p]!
      const len = bytes[p + 1] ?? 0
      if (p + 2 + len > end) throw new RtpParseError('RTCP SDES item truncated')
      items.push({ type, text: utf8d.decode(bytes.subarray(p + 2, p + 2 + len)) })
      p += 2 + len
    }
    p = (p + 4) & ~3 // the null terminator plus padding to a 32-bit boundary
    chunks.push({ ssrc, items })
  }
  const sdes: SourceDescription = { type: 'sdes', chunks }
  return byteEqual(serializeRtcp([sdes]), bytes.subarray(offset, end)) ? sdes : null
}

function byteEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false
  return true
}

function writeBlocks(view: DataView, offset: number, blocks: ReportBlock[]): void {
  for (const r of blocks) {
    view.setUint32(offset, r.ssrc >>> 0)
    view.setUint32(offset + 4, ((r.fractionLost & 0xff) << 24) | (r.packetsLost & 0xffffff))
    view.setUint32(offset + 8, r.highestSequence >>> 0)
    view.setUint32(offset + 12, r.jitter >>> 0)
    view.setUint32(offset + 16, r.lastSr >>> 0)
    view.setUint32(offset + 20, r.delaySinceLastSr >>> 0)
    offset += 24
  }
}

function encodeOne(p: RtcpPacket): Uint8Array {
  if (p.type === 'other') return p.raw
  let body: Uint8Array
  let count: number
  let pt: number
  if (p.type === 'sr' || p.type === 'rr') {
    const head = p.type === 'sr' ? 28 : 8
    const ext = p.extension?.length ?? 0
    body = new Uint8Array(head + p.reports.length * 24 + ext)
    const v = new DataView(body.buffer)
    v.setUint32(4, p.ssrc >>> 0)
    if (p.type === 'sr') {
      v.setUint32(8, p.ntpSec >>> 0)
      v.setUint32(12, p.ntpFrac >>> 0)
      v.setUint32(16, p.rtpTimestamp >>> 0)
      v.setUint32(20, p.packetCount >>> 0)
      v.setUint32(24, p.octetCount >>> 0)
    }
    writeBlocks(v, head, p.reports)
    if (p.extension) body.set(p.extension, head + p.reports.length * 24)
    count = p.reports.length
    pt = p.type === 'sr' ? RTCP_SR : RTCP_RR
  } else if (p.type === 'sdes') {
    const parts: number[] = [0, 0, 0, 0]
    for (const chunk of p.chunks) {
      parts.push(chunk.ssrc >>> 24, (chunk.ssrc >>> 16) & 0xff, (chunk.ssrc >>> 8) & 0xff, chunk.ssrc & 0xff)
      for (const item of chunk.items) {
        const text = utf8.encode(item.text).subarray(0, 255)
        parts.push(item.type, text.length, ...text)
      }
      parts.push(0)
      while (parts.length % 4) parts.push(0)
    }
    body = Uint8Array.from(parts)
    count = p.chunks.length
    pt = RTCP_SDES
  } else {
    const reason = p.reason === undefined ? undefined : utf8.encode(p.reason).subarray(0, 255)
    const len = 4 + p.ssrcs.length * 4 + (reason ? 1 + reason.length : 0)
    body = new Uint8Array((len + 3) & ~3)
    const v = new DataView(body.buffer)
    p.ssrcs.forEach((s, i) => v.setUint32(4 + i * 4, s >>> 0))
    if (reason) {
      body[4 + p.ssrcs.length * 4] = reason.length
      body.set(reason, 5 + p.ssrcs.length * 4)
    }
    count = p.ssrcs.length
    pt = RTCP_BYE
  }
  if (count > 31) throw new RangeError('at most 31 report blocks or chunks per RTCP packet')
  body[0] = 0x80 | count
  body[1] = pt
  new DataView(body.buffer).setUint16(2, body.length / 4 - 1)
  return body
}

export function serializeRtcp(packets: RtcpPacket[]): Uint8Array {
  const parts = packets.map(encodeOne)
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0))
  let o = 0
  for (const p of parts) {
    out.set(p, o)
    o += p.length
  }
  return out
}
