// Reads UDP datagrams out of a classic libpcap file (Ethernet, Linux cooked or raw IPv4 links).
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { decodeG711 } from '../../src/realtime/media/codec/index.ts'

export interface PcapUdp {
  timeMs: number
  srcPort: number
  dstPort: number
  payload: Uint8Array
}

export function readPcapUdp(path: string): PcapUdp[] {
  const bytes = new Uint8Array(readFileSync(path))
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  const magic = view.getUint32(0, true)
  const little = magic === 0xa1b2c3d4 || magic === 0xa1b23c4d
  if (!little && magic !== 0xd4c3b2a1 && magic !== 0x4d3cb2a1) throw new Error(`${path} is not a pcap file`)
  const nanos = magic === 0xa1b23c4d || magic === 0x4d3cb2a1
  const linkType = view.getUint32(20, little)
  const out: PcapUdp[] = []
  let off = 24
  while (off + 16 <= bytes.length) {
    const sec = view.getUint32(off, little)
    const sub = view.getUint32(off + 4, little)
    const caplen = view.getUint32(off + 8, little)
    const frame = bytes.subarray(off + 16, off + 16 + caplen)
    off += 16 + caplen
    let ip = linkType === 1 ? 14 : linkType === 113 ? 16 : linkType === 101 ? 0 : -1
    if (ip < 0) throw new Error(`unsupported pcap link type ${linkType}`)
    if (linkType === 1 && frame[12] === 0x81 && frame[13] === 0x00) ip += 4 // 802.1Q tag
    if (frame[ip]! >> 4 !== 4 || frame[ip + 9] !== 17) continue
    const udp = ip + (frame[ip]! & 0x0f) * 4
    const fv = new DataView(frame.buffer, frame.byteOffset, frame.byteLength)
    const udpLen = fv.getUint16(udp + 4)
    out.push({
      timeMs: sec * 1000 + (nanos ? sub / 1e6 : sub / 1e3),
      srcPort: fv.getUint16(udp),
      dstPort: fv.getUint16(udp + 2),
      payload: frame.slice(udp + 8, udp + udpLen),
    })
  }
  return out
}

/** Where SIPp's pcaps live: Debian's sip-tester, or SIPP_PCAP_DIR. */
export const SIPP_PCAP_DIR = process.env.SIPP_PCAP_DIR ?? '/usr/share/sip-tester'

/** SIPp's recorded human speech: the caller's PCMA packets of its uac_pcap scenario (g711a.pcap, about 7 s), decoded to 8 kHz PCM. */
export function sippHumanSpeech(): Int16Array {
  const chunks = readPcapUdp(join(SIPP_PCAP_DIR, 'g711a.pcap'))
    .map((p) => p.payload)
    .filter((b) => b.length > 12 && (b[1]! & 0x7f) === 8)
    .map((b) => decodeG711('alaw', b.subarray(12 + 4 * (b[0]! & 0x0f))))
  const out = new Int16Array(chunks.reduce((n, c) => n + c.length, 0))
  let at = 0
  for (const c of chunks) (out.set(c, at), (at += c.length))
  return out
}
