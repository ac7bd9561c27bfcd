// A packet capture on the loopback with tcpdump (Debian package; the tests run as root), and a
// check of what it holds: whether the RTP in it carries audio anyone on the path could play.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { readPcapUdp, type PcapUdp } from './pcap.ts'

export interface LoopbackCapture {
  /** Stops tcpdump and returns the UDP datagrams it saw; later calls return the same. */
  stop(): Promise<PcapUdp[]>
  /** tcpdump's own account once stopped (captured, received by filter, dropped by kernel), for failure messages. */
  summary(): string
}

/** Starts capturing UDP on `lo` matching `filter` (a pcap filter); resolves once tcpdump listens. */
export async function captureLoopback(filter = 'udp'): Promise<LoopbackCapture> {
  const dir = mkdtempSync(join(tmpdir(), 'capture-'))
  const file = join(dir, 'lo.pcap')
  // --immediate-mode hands each packet to tcpdump as it arrives (no ring-block timeout holding the
  // last ones back at SIGINT); a 2 KiB snap length keeps that ring's frames small and many
  const proc = Bun.spawn(['tcpdump', '-i', 'lo', '-n', '--immediate-mode', '-U', '-B', '8192', '-s', '2048', '-w', file, filter], { stdout: 'ignore', stderr: 'pipe' })
  // one reader for all of stderr: leaving a for-await early cancels the pipe, and tcpdump's
  // account at exit would then go nowhere
  let err = ''
  let onListening: () => void = () => {}
  const listening = new Promise<void>((res) => (onListening = res))
  const drain = (async () => {
    const decoder = new TextDecoder()
    for await (const chunk of proc.stderr) {
      err += decoder.decode(chunk)
      if (err.includes('listening on')) onListening()
    }
    onListening()
  })()
  await listening
  if (!err.includes('listening on')) throw new Error(`tcpdump did not start: ${err}`)
  let stopped: Promise<PcapUdp[]> | undefined
  const stop = async () => {
    proc.kill('SIGINT')
    await proc.exited
    await drain
    try {
      return readPcapUdp(file)
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  }
  const summary = () => `${err.split('\n').filter((l) => /packets|dropped/.test(l)).join('; ')} (exit ${proc.exitCode ?? proc.signalCode})`
  return { stop: () => (stopped ??= stop()), summary }
}

export interface RtpPayloadReport {
  /** Datagrams with a valid RTP version 2 header and a payload. */
  packets: number
  /** Shannon entropy of all payload bytes together, bits per byte: ciphertext is close to 8. */
  entropy: number
  /** Payloads of one byte value for 90% or more: G.711 silence, which ciphertext never is. */
  silentPayloads: number
}

/** The payloads of the RTP datagrams sent from `fromPorts` ([first, last]) to `toPorts`. */
export function rtpPayloadReport(packets: PcapUdp[], from: (port: number) => boolean, to: (port: number) => boolean): RtpPayloadReport {
  const counts = new Float64Array(256)
  let total = 0
  let rtp = 0
  let silent = 0
  for (const p of packets) {
    if (!from(p.srcPort) || !to(p.dstPort)) continue
    const b = p.payload
    if (b.length < 13 || b[0]! >> 6 !== 2) continue
    // RTCP (payload types 200-204 with the marker bit) is not audio
    if (b[1]! >= 200 && b[1]! <= 204) continue
    const header = 12 + (b[0]! & 0x0f) * 4 + (b[0]! & 0x10 ? 4 + ((b[14 + (b[0]! & 0x0f) * 4]! << 8) | b[15 + (b[0]! & 0x0f) * 4]!) * 4 : 0)
    if (header >= b.length) continue
    rtp++
    const seen = new Uint16Array(256)
    for (let i = header; i < b.length; i++) {
      counts[b[i]!]!++
      seen[b[i]!]!++
    }
    total += b.length - header
    if (Math.max(...seen) >= 0.9 * (b.length - header)) silent++
  }
  let entropy = 0
  for (const c of counts) if (c) entropy -= (c / total) * Math.log2(c / total)
  return { packets: rtp, entropy, silentPayloads: silent }
}

export const inRange = ([first, last]: [number, number]) => (port: number) => port >= first && port <= last
