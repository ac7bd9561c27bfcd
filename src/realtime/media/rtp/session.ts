// One RTP session over real UDP sockets: one SSRC, sequence numbers and timestamps, strict
// symmetric latching of the remote address, and RTCP sender/receiver reports with the loss,
// jitter and round-trip figures they carry. With SDES keys it speaks SRTP and SRTCP: every
// packet sent is protected, every packet received is unprotected before it is parsed, and only
// a packet that authenticates can latch the remote address.

import { looksLikeRtcp, parseRtp, RtpParseError, type RtpPacket } from './packet.ts'
import { descriptorOf, type BoundPorts, type UdpSocket } from './port-pool.ts'
import { parseRtcp, serializeRtcp, SDES_CNAME, type ReportBlock, type RtcpPacket } from './rtcp.ts'
import { ntpFromUnixMs, ReceiveStats, roundTripMs } from './stats.ts'
import { createHash } from 'node:crypto'
import { sockaddrOf, type PacedOwner, type Pacer } from '../pacer/index.ts'
import { isSrtpSuite, SrtpInbound, SrtpKeyError, SrtpOutbound, type SrtpRefusal } from '../../srtp/index.ts'
import type { RtpSessionStats, RtpSrtpKeys } from './session-stats.ts'
export type { RtpSessionStats, RtpSrtpKeys, RtpSrtpStats } from './session-stats.ts'

export interface RemoteEndpoint {
  address: string
  rtpPort: number
  rtcpPort: number
  rtcpMux: boolean
}

export interface RtpSessionOptions {
  ports: BoundPorts
  remote: RemoteEndpoint
  clockRate: number
  /** Other addresses a first packet may come from (the SIP peer's signalling address). */
  trustedAddresses?: string[]
  cname?: string
  rtcpIntervalMs?: number
  /** Monotonic clock in ms; performance.now by default. */
  now?: () => number
  onPacket?: (packet: RtpPacket, arrivalMs: number) => void
  onBye?: () => void
  /** After each incoming RTCP compound packet has been applied to the stats. */
  onRtcp?: (packets: RtcpPacket[]) => void
  /** SDES keys: when present the session speaks SRTP/SRTCP only. */
  srtp?: RtpSrtpKeys
  /** Sends RTP packets given a due instant at that instant, from its own thread. */
  pacer?: Pacer
  /** How late a packet the pacer sent went out, in ms. */
  onPaced?: (lateMs: number) => void
}

/** Largest RTP packet the session sends, and the most any suite adds to one (the GCM tag). */
const MAX_RTP = 1500
const MAX_SRTP_OVERHEAD = 16

/** A one-way digest of a key, to tell whether a re-INVITE changed it without keeping the key. */
const fingerprint = (suite: string, key: string) => createHash('sha256').update(suite).update('\0').update(key).digest('base64')

interface SrtpState {
  suite: string
  out: SrtpOutbound
  sendPrint: string
  in: SrtpInbound
  receivePrint: string
  /** After a re-key, the peer's old context, until a packet authenticates under the new key. */
  previousIn: SrtpInbound | undefined
}

const randomU32 = () => crypto.getRandomValues(new Uint32Array(1))[0]!

/**
 * The wait before the next RTCP report (RFC 3550 6.3.1): the nominal interval times a uniform
 * draw from [0.5, 1.5], so sessions started together (a campaign's burst, a trunk failing over)
 * do not report in step; the first waits half the nominal interval (6.2).
 */
export function rtcpReportDelay(nominalMs: number, first: boolean, random: () => number = Math.random): number {
  return (first ? nominalMs / 2 : nominalMs) * (0.5 + random())
}

export class RtpSession {
  readonly ssrc = randomU32()
  private seq = randomU32() & 0xffff
  private readonly tsBase = randomU32()
  private remote: RemoteEndpoint
  private latchedRtp: { address: string; port: number } | undefined
  private latchedRtcp: { address: string; port: number } | undefined
  private receive: ReceiveStats | undefined
  private readonly now: () => number
  private packetsSent = 0
  private octetsSent = 0
  private lastRtpTs = 0
  private lastSendAtMs = 0
  private rejected = 0
  private malformed = 0
  private sendErrors = 0
  private pacedTo: object | undefined
  private pacedAddress: Uint8Array | undefined
  private readonly pacedOwner: PacedOwner = {
    sent: (lateMs) => this.opts.onPaced?.(lateMs),
    failed: () => this.sendErrors++,
  }
  private remoteReport: ReportBlock | undefined
  private rttMs: number | undefined
  private timer: ReturnType<typeof setTimeout> | undefined
  private readonly sendBuf = new Uint8Array(MAX_RTP + MAX_SRTP_OVERHEAD)
  private sendView = this.sendBuf.subarray(0, 0)
  private sdpRtp: { address: string; port: number }
  private closed = false
  private srtp: SrtpState | undefined
  private readonly srtpRefused: Record<SrtpRefusal, number> = { auth: 0, replay: 0, malformed: 0 }

  constructor(private readonly opts: RtpSessionOptions) {
    this.setSrtp(opts.srtp)
    this.remote = opts.remote
    this.sdpRtp = { address: opts.remote.address, port: opts.remote.rtpPort }
    this.now = opts.now ?? (() => performance.now())
    opts.ports.setHandlers(
      (data, port, address) => this.onDatagram(data, port, address, false),
      (data, port, address) => this.onDatagram(data, port, address, true),
    )
    this.scheduleReport(true)
  }

  private scheduleReport(first: boolean): void {
    this.timer = setTimeout(() => {
      this.sendReport()
      if (!this.closed) this.scheduleReport(false)
    }, rtcpReportDelay(this.opts.rtcpIntervalMs ?? 5000, first))
  }

  get localPort(): number {
    return this.opts.ports.port
  }

  /** A re-INVITE changed the remote address or ports: drop the latch and learn again. */
  setRemote(remote: RemoteEndpoint): void {
    this.remote = remote
    this.sdpRtp = { address: remote.address, port: remote.rtpPort }
    this.latchedRtp = undefined
    this.latchedRtcp = undefined
  }

  /**
   * New SDES keys from a re-INVITE, or `undefined` to fall back to plain RTP. A direction whose
   * suite and key did not change keeps its context (and with it the rollover counter and replay
   * window); a new receive key keeps the old one as a fallback until the peer's first packet
   * under the new key authenticates, so packets in flight across the re-key are not dropped.
   * Throws SrtpKeyError (which never quotes a key) when a key does not fit the suite.
   */
  setSrtp(keys: RtpSrtpKeys | undefined): void {
    if (!keys) {
      this.srtp = undefined
      return
    }
    const { suite } = keys
    if (!isSrtpSuite(suite)) throw new SrtpKeyError(`unsupported SRTP crypto suite ${JSON.stringify(suite)}`)
    const sendPrint = fingerprint(suite, keys.sendKey)
    const receivePrint = fingerprint(suite, keys.receiveKey)
    const was = this.srtp
    const out = was?.sendPrint === sendPrint ? was.out : new SrtpOutbound(suite, keys.sendKey)
    const keepIn = was?.receivePrint === receivePrint
    const inbound = keepIn ? was.in : new SrtpInbound(suite, keys.receiveKey)
    this.srtp = { suite, out, sendPrint, in: inbound, receivePrint, previousIn: keepIn ? was.previousIn : was?.in }
  }

  /**
   * Sends one packet; `timestamp` is relative to the session's random base. With `dueMs` (the
   * clock of `now`) and a pacer, the packet is queued to go out then, and the result is true.
   */
  send(payloadType: number, payload: Uint8Array, timestamp: number, marker = false, dueMs?: number): boolean {
    if (this.closed) return false
    // Written in place, without per-packet objects: the send instant is where a GC pause hurts.
    const buf = this.sendBuf
    const len = 12 + payload.length
    if (len > MAX_RTP) return false
    const ts = (this.tsBase + timestamp) >>> 0
    buf[0] = 0x80
    buf[1] = (marker ? 0x80 : 0) | (payloadType & 0x7f)
    buf[2] = this.seq >> 8
    buf[3] = this.seq & 0xff
    buf[4] = ts >>> 24
    buf[5] = (ts >>> 16) & 0xff
    buf[6] = (ts >>> 8) & 0xff
    buf[7] = ts & 0xff
    buf[8] = this.ssrc >>> 24
    buf[9] = (this.ssrc >>> 16) & 0xff
    buf[10] = (this.ssrc >>> 8) & 0xff
    buf[11] = this.ssrc & 0xff
    buf.set(payload, 12)
    if (this.sendView.length !== len) this.sendView = buf.subarray(0, len)
    this.seq = (this.seq + 1) & 0xffff
    let bytes: Uint8Array = this.sendView
    if (this.srtp) {
      // sealed in place: sendBuf has room for the tag after the packet
      const sealed = this.srtp.out.protectRtp(bytes, buf)
      if (typeof sealed === 'string') return false
      bytes = sealed
    }
    const to = this.latchedRtp ?? this.sdpRtp
    const paced = dueMs !== undefined && this.queue(bytes, to, dueMs)
    if (!paced && !this.transmit(this.opts.ports.rtp, bytes, to)) return false
    this.packetsSent++
    this.octetsSent += payload.length
    this.lastRtpTs = ts
    this.lastSendAtMs = paced ? dueMs : this.now()
    return paced
  }

  /** Hands a packet to the pacer; false when there is none or it cannot take it. */
  private queue(bytes: Uint8Array, to: { address: string; port: number }, dueMs: number): boolean {
    const pacer = this.opts.pacer
    if (!pacer) return false
    const socket = this.opts.ports.rtp
    if (this.pacedTo !== to) {
      this.pacedTo = to
      this.pacedAddress = sockaddrOf(to.address, to.port, socket.address.family === 'IPv6' ? 'IPv6' : 'IPv4')
    }
    const fd = descriptorOf(socket)
    return fd !== undefined && this.pacedAddress !== undefined && pacer.push(fd, this.pacedAddress, bytes, dueMs, this.pacedOwner)
  }

  stats(): RtpSessionStats {
    const r = this.receive
    const block = this.remoteReport
    return {
      ssrc: this.ssrc,
      remoteSsrc: r?.ssrc,
      packetsSent: this.packetsSent,
      octetsSent: this.octetsSent,
      packetsReceived: r?.received ?? 0,
      packetsLost: r ? Math.max(0, r.packetsLost) : 0,
      fractionLost: r && r.expected > 0 ? Math.max(0, r.packetsLost) / r.expected : 0,
      jitterMs: r?.jitterMs ?? 0,
      remotePacketsLost: block?.packetsLost,
      remoteFractionLost: block ? block.fractionLost / 256 : undefined,
      remoteJitterMs: block ? (block.jitter / this.opts.clockRate) * 1000 : undefined,
      rttMs: this.rttMs,
      rejectedPackets: this.rejected,
      malformedPackets: this.malformed,
      sendErrors: this.sendErrors,
      latchedTo: this.latchedRtp ? `${this.latchedRtp.address}:${this.latchedRtp.port}` : undefined,
      ...(this.srtp && {
        srtp: { suite: this.srtp.suite, authFailures: this.srtpRefused.auth, replays: this.srtpRefused.replay, malformed: this.srtpRefused.malformed },
      }),
    }
  }

  /** Sends a final report with BYE and stops; the ports stay with their owner. */
  close(): void {
    if (this.closed) return
    this.sendReport(true)
    this.closed = true
    clearTimeout(this.timer)
    this.opts.ports.setHandlers(() => {}, () => {})
  }

  /** Whether a datagram from there may be looked at: the latched source, or before the latch a trusted address. */
  private admits(address: string, port: number, rtcp: boolean): boolean {
    const latched = rtcp ? this.latchedRtcp : this.latchedRtp
    if (latched) return latched.address === address && latched.port === port
    return address === this.remote.address || (this.opts.trustedAddresses ?? []).includes(address)
  }

  private latch(address: string, port: number, rtcp: boolean): void {
    if (rtcp) this.latchedRtcp ??= { address, port }
    else this.latchedRtp ??= { address, port }
  }

  /** The length of the plain packet an SRTP/SRTCP one holds, decrypted in place; -1 (and counted) when refused. */
  private unprotect(srtp: SrtpState, data: Uint8Array, rtcp: boolean): number {
    const opened = rtcp ? lengthOf(srtp.in.unprotectRtcp(data, data)) : srtp.in.unprotectRtpInPlace(data)
    if (typeof opened !== 'string') {
      srtp.previousIn = undefined
      return opened
    }
    // a refused packet is left as it came, so the key before a re-key can still try it
    if (opened === 'auth' && srtp.previousIn) {
      const old = rtcp ? lengthOf(srtp.previousIn.unprotectRtcp(data, data)) : srtp.previousIn.unprotectRtpInPlace(data)
      if (typeof old !== 'string') return old
    }
    this.srtpRefused[opened]++
    return -1
  }

  private onDatagram(data: Uint8Array, port: number, address: string, onRtcpPort: boolean): void {
    if (this.closed) return
    const isRtcp = onRtcpPort || (this.remote.rtcpMux && looksLikeRtcp(data))
    if (!this.admits(address, port, isRtcp)) {
      this.rejected++
      return
    }
    // Only a packet that authenticates may latch: a spoofed source must not steal the stream.
    let length = data.length
    if (this.srtp) {
      try {
        length = this.unprotect(this.srtp, data, isRtcp)
      } catch {
        // a failing cipher call (libcrypto out of memory): the datagram is dropped, never thrown into the socket
        this.srtpRefused.malformed++
        return
      }
      if (length < 0) return
    }
    this.latch(address, port, isRtcp)
    const arrivalMs = this.now()
    try {
      if (isRtcp) this.onRtcp(parseRtcp(length === data.length ? data : data.subarray(0, length)), arrivalMs)
      else {
        const packet = parseRtp(data, length)
        if (!this.receive || this.receive.ssrc !== packet.ssrc) this.receive = new ReceiveStats(packet.ssrc, this.opts.clockRate)
        if (!this.receive.update(packet.sequenceNumber, packet.timestamp, arrivalMs)) return
        this.opts.onPacket?.(packet, arrivalMs)
      }
    } catch (err) {
      if (!(err instanceof RtpParseError)) throw err
      this.malformed++
    }
  }

  private onRtcp(packets: RtcpPacket[], arrivalMs: number): void {
    const unixNow = Date.now()
    for (const p of packets) {
      if (p.type === 'sr' && this.receive?.ssrc === p.ssrc) this.receive.noteSenderReport(p.ntpSec, p.ntpFrac, arrivalMs)
      if (p.type === 'sr' || p.type === 'rr') {
        const mine = p.reports.find((b) => b.ssrc === this.ssrc)
        if (mine) {
          this.remoteReport = mine
          const rtt = roundTripMs(mine, unixNow)
          if (rtt !== undefined) this.rttMs = rtt
        }
      }
      if (p.type === 'bye') this.opts.onBye?.()
    }
    this.opts.onRtcp?.(packets)
  }

  private sendReport(bye = false): void {
    if (this.closed) return
    const nowMs = this.now()
    const blocks = this.receive ? [this.receive.reportBlock(nowMs)] : []
    const packets: RtcpPacket[] = []
    if (this.packetsSent > 0) {
      const [ntpSec, ntpFrac] = ntpFromUnixMs(Date.now())
      const elapsedTs = Math.round(((nowMs - this.lastSendAtMs) * this.opts.clockRate) / 1000)
      packets.push({
        type: 'sr',
        ssrc: this.ssrc,
        ntpSec,
        ntpFrac,
        rtpTimestamp: (this.lastRtpTs + elapsedTs) >>> 0,
        packetCount: this.packetsSent,
        octetCount: this.octetsSent,
        reports: blocks,
      })
    } else packets.push({ type: 'rr', ssrc: this.ssrc, reports: blocks })
    packets.push({ type: 'sdes', chunks: [{ ssrc: this.ssrc, items: [{ type: SDES_CNAME, text: this.opts.cname ?? `appliance@${this.opts.ports.port}` }] }] })
    if (bye) packets.push({ type: 'bye', ssrcs: [this.ssrc] })
    const to = this.remote.rtcpMux
      ? (this.latchedRtp ?? { address: this.remote.address, port: this.remote.rtpPort })
      : (this.latchedRtcp ?? { address: this.remote.address, port: this.remote.rtcpPort })
    const socket = this.remote.rtcpMux ? this.opts.ports.rtp : this.opts.ports.rtcp
    let bytes = serializeRtcp(packets)
    if (this.srtp) {
      const sealed = this.srtp.out.protectRtcp(bytes)
      if (typeof sealed === 'string') return
      bytes = sealed
    }
    this.transmit(socket, bytes, to)
  }

  /** A send can fail with the ICMP error of an earlier one (ECONNREFUSED); count it, carry on. */
  private transmit(socket: UdpSocket, bytes: Uint8Array, to: { address: string; port: number }): boolean {
    try {
      socket.send(bytes, to.port, to.address)
      return true
    } catch {
      this.sendErrors++
      return false
    }
  }
}

const lengthOf = (opened: Uint8Array | SrtpRefusal): number | SrtpRefusal => (typeof opened === 'string' ? opened : opened.length)
