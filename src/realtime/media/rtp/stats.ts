// Receive-side statistics as RFC 3550 Appendix A.1, A.3 and A.8 compute them, and the
// round-trip time from a report block (section 6.4.1). Pure: times are arguments.

import type { ReportBlock } from './rtcp.ts'

const MAX_DROPOUT = 3000
const MAX_MISORDER = 100
const SEQ_MOD = 0x10000

/** Milliseconds since the Unix epoch -> NTP 64-bit timestamp as [seconds, fraction]. */
export function ntpFromUnixMs(unixMs: number): [number, number] {
  const sec = Math.floor(unixMs / 1000)
  const frac = Math.floor(((unixMs - sec * 1000) / 1000) * 0x100000000)
  return [(sec + 2208988800) >>> 0, frac >>> 0]
}

/** The middle 32 bits of an NTP timestamp, the unit of LSR and DLSR (1/65536 s). */
export function ntpMiddle32(sec: number, frac: number): number {
  return (((sec & 0xffff) << 16) | (frac >>> 16)) >>> 0
}

/** Round-trip time in ms from a report block about our stream, or undefined without an SR echo. */
export function roundTripMs(block: ReportBlock, arrivalUnixMs: number): number | undefined {
  if (block.lastSr === 0) return undefined
  const [sec, frac] = ntpFromUnixMs(arrivalUnixMs)
  const rtt = (ntpMiddle32(sec, frac) - block.lastSr - block.delaySinceLastSr) >>> 0
  if (rtt > 0x7fffffff) return 0
  return (rtt / 65536) * 1000
}

export class ReceiveStats {
  private maxSeq = 0
  private cycles = 0
  private baseSeq = 0
  private badSeq = SEQ_MOD + 1
  private started = false
  received = 0
  private expectedPrior = 0
  private receivedPrior = 0
  private transit = 0
  /** Interarrival jitter in timestamp units, scaled as RFC 3550 A.8 keeps it (jitter * 16). */
  private jitterQ4 = 0
  /** Middle 32 bits of the last SR's NTP time and the local time it arrived. */
  private lastSr = 0
  private lastSrAtMs = 0

  constructor(
    readonly ssrc: number,
    readonly clockRate: number,
  ) {}

  /** Records one packet; returns false for a packet the A.1 validation rejects (a probable restart). */
  update(seq: number, rtpTimestamp: number, arrivalMs: number): boolean {
    if (!this.started) {
      this.started = true
      this.baseSeq = seq
      this.maxSeq = seq
      this.badSeq = SEQ_MOD + 1
    } else {
      const delta = (seq - this.maxSeq + SEQ_MOD) % SEQ_MOD
      if (delta < MAX_DROPOUT) {
        if (seq < this.maxSeq) this.cycles += SEQ_MOD
        this.maxSeq = seq
      } else if (delta <= SEQ_MOD - MAX_MISORDER) {
        if (seq === this.badSeq) {
          // Two sequential packets after a large jump: the source restarted.
          this.baseSeq = seq
          this.maxSeq = seq
          this.cycles = 0
          this.received = 0
          this.expectedPrior = 0
          this.receivedPrior = 0
        } else {
          this.badSeq = (seq + 1) % SEQ_MOD
          return false
        }
      }
    }
    this.received++
    const arrivalTs = (arrivalMs * this.clockRate) / 1000
    const transit = arrivalTs - rtpTimestamp
    if (this.received > 1) {
      let d = Math.abs(transit - this.transit)
      if (d > 0x7fffffff) d = 0
      this.jitterQ4 += d - (this.jitterQ4 + 8) / 16
    }
    this.transit = transit
    return true
  }

  noteSenderReport(ntpSec: number, ntpFrac: number, arrivalMs: number): void {
    this.lastSr = ntpMiddle32(ntpSec, ntpFrac)
    this.lastSrAtMs = arrivalMs
  }

  get extendedMaxSeq(): number {
    return this.cycles + this.maxSeq
  }
  get expected(): number {
    return this.started ? this.extendedMaxSeq - this.baseSeq + 1 : 0
  }
  get packetsLost(): number {
    return this.expected - this.received
  }
  get jitterTs(): number {
    return Math.floor(this.jitterQ4 / 16)
  }
  get jitterMs(): number {
    return (this.jitterQ4 / 16 / this.clockRate) * 1000
  }

  /** A report block for an RR/SR; advances the "since last report" counters. */
  reportBlock(nowMs: number): ReportBlock {
    const expected = this.expected
    const expectedInterval = expected - this.expectedPrior
    const receivedInterval = this.received - this.receivedPrior
    this.expectedPrior = expected
    this.receivedPrior = this.received
    const lostInterval = expectedInterval - receivedInterval
    const fraction = expectedInterval === 0 || lostInterval <= 0 ? 0 : Math.floor((lostInterval << 8) / expectedInterval)
    const lost = Math.max(-0x800000, Math.min(0x7fffff, this.packetsLost))
    return {
      ssrc: this.ssrc,
      fractionLost: Math.min(255, fraction),
      packetsLost: lost,
      highestSequence: this.extendedMaxSeq >>> 0,
      jitter: this.jitterTs >>> 0,
      lastSr: this.lastSr,
      delaySinceLastSr: this.lastSr ? Math.round(((nowMs - this.lastSrAtMs) / 1000) * 65536) >>> 0 : 0,
    }
  }
}
