// Adaptive jitter buffer: a pure core driven by push(packet, arrivalMs) and one pop() per
// playout step. It orders by extended sequence number, drops duplicates and late packets,
// reports losses for concealment, and adapts its target depth to the measured jitter.

export interface JitterPacket {
  sequenceNumber: number
  timestamp: number
  ssrc: number
  marker?: boolean
  payload: Uint8Array
}

export interface JitterBufferOptions {
  clockRate: number
  /** Playout step and default packet duration in ms. */
  frameMs?: number
  minDelayMs?: number
  maxDelayMs?: number
  /** Delay to start with before any jitter is measured. */
  initialDelayMs?: number
}

export type PushResult = 'accepted' | 'duplicate' | 'late' | 'reset'

export type PopResult =
  | { kind: 'packet'; packet: JitterPacket; durationSamples: number }
  | { kind: 'lost'; durationSamples: number }
  | { kind: 'buffering' }

export interface JitterStats {
  received: number
  played: number
  lost: number
  late: number
  duplicates: number
  /** Packets discarded to bring the delay back down to the target. */
  dropped: number
  underruns: number
  resets: number
  jitterMs: number
  targetDelayMs: number
  currentDelayMs: number
  maxDelayMs: number
}

const MAX_SEQ_JUMP = 1000

export class JitterBuffer {
  private readonly clockRate: number
  private readonly frameMs: number
  private readonly minDelayMs: number
  private readonly maxDelayMs: number
  private readonly packets = new Map<number, JitterPacket>()
  private ssrc: number | undefined
  private highestExt = -1
  private nextExt = -1
  private playing = false
  private started = false
  private cleanPops = 0
  private samplesPerPacket: number
  private jitterMs = 0
  private lastTransitMs: number | undefined
  private targetMs: number
  private underrunBoostMs = 0
  private readonly s: Omit<JitterStats, 'jitterMs' | 'targetDelayMs' | 'currentDelayMs'> = {
    received: 0,
    played: 0,
    lost: 0,
    late: 0,
    duplicates: 0,
    dropped: 0,
    underruns: 0,
    resets: 0,
    maxDelayMs: 0,
  }

  constructor(options: JitterBufferOptions) {
    this.clockRate = options.clockRate
    this.frameMs = options.frameMs ?? 20
    this.minDelayMs = options.minDelayMs ?? 40
    this.maxDelayMs = options.maxDelayMs ?? 200
    if (this.minDelayMs > this.maxDelayMs) throw new RangeError('minDelayMs must not exceed maxDelayMs')
    this.targetMs = clamp(options.initialDelayMs ?? 60, this.minDelayMs, this.maxDelayMs)
    this.samplesPerPacket = (this.clockRate * this.frameMs) / 1000
  }

  push(packet: JitterPacket, arrivalMs: number): PushResult {
    let result: PushResult = 'accepted'
    if (this.ssrc !== packet.ssrc) {
      if (this.ssrc !== undefined) {
        this.restart()
        result = 'reset'
      }
      this.ssrc = packet.ssrc
    }
    let ext = this.extend(packet.sequenceNumber)
    if (this.highestExt >= 0 && Math.abs(ext - this.highestExt) > MAX_SEQ_JUMP) {
      this.restart()
      result = 'reset'
      ext = packet.sequenceNumber
    }
    this.s.received++
    if (this.started && ext < this.nextExt) {
      this.s.late++
      return 'late'
    }
    if (this.packets.has(ext)) {
      this.s.duplicates++
      return 'duplicate'
    }
    this.updateJitter(packet.timestamp, arrivalMs)
    if (ext > this.highestExt) {
      const prev = this.packets.get(ext - 1)
      if (prev) {
        const step = (packet.timestamp - prev.timestamp) >>> 0
        if (step > 0 && step <= this.clockRate / 5) this.samplesPerPacket = step
      }
      this.highestExt = ext
    }
    this.packets.set(ext, packet)
    this.s.maxDelayMs = Math.max(this.s.maxDelayMs, this.bufferedMs())
    return result
  }

  /** One playout step: the next packet, a loss to conceal, or buffering (play silence). */
  pop(): PopResult {
    if (!this.playing) {
      if (this.packets.size === 0 || this.bufferedMs() < this.targetMs) return { kind: 'buffering' }
      this.playing = true
      if (!this.started) this.nextExt = Math.min(...this.packets.keys())
      this.started = true
    }
    if (this.packets.size === 0) {
      // Underrun: conceal this step, then rebuild depth; a packet that is merely late still plays.
      this.s.underruns++
      this.underrunBoostMs = Math.min(this.underrunBoostMs + this.frameMs, this.maxDelayMs)
      this.updateTarget()
      this.playing = false
      return { kind: 'lost', durationSamples: this.samplesPerPacket }
    }
    while (this.bufferedMs() > this.targetMs + 2 * this.packetMs() && this.packets.size > 1) {
      if (this.packets.delete(this.nextExt)) this.s.dropped++
      this.nextExt++
    }
    const packet = this.packets.get(this.nextExt)
    this.nextExt++
    if (!packet) {
      this.s.lost++
      return { kind: 'lost', durationSamples: this.samplesPerPacket }
    }
    this.packets.delete(this.nextExt - 1)
    this.s.played++
    // An underrun raised the target; give it back slowly (one frame per ~10 s of clean playout).
    if (this.underrunBoostMs > 0 && ++this.cleanPops % 500 === 0) {
      this.underrunBoostMs = Math.max(0, this.underrunBoostMs - this.frameMs)
      this.updateTarget()
    }
    const next = this.packets.get(this.nextExt)
    const duration = next ? (next.timestamp - packet.timestamp) >>> 0 : this.samplesPerPacket
    return { kind: 'packet', packet, durationSamples: duration > 0 && duration <= this.clockRate / 5 ? duration : this.samplesPerPacket }
  }

  stats(): JitterStats {
    return { ...this.s, jitterMs: this.jitterMs, targetDelayMs: this.targetMs, currentDelayMs: this.bufferedMs() }
  }

  /** Audio held, in ms, from the next packet to play up to the end of the newest one. */
  bufferedMs(): number {
    if (this.packets.size === 0) return 0
    const from = this.started ? this.nextExt : Math.min(...this.packets.keys())
    return (this.highestExt - from + 1) * this.packetMs()
  }

  private packetMs(): number {
    return (this.samplesPerPacket / this.clockRate) * 1000
  }

  private extend(seq: number): number {
    if (this.highestExt < 0) return seq
    const cur = this.highestExt & 0xffff
    let delta = seq - cur
    if (delta > 0x8000) delta -= 0x10000
    else if (delta < -0x8000) delta += 0x10000
    return this.highestExt + delta
  }

  private updateJitter(timestamp: number, arrivalMs: number): void {
    const transit = arrivalMs - (timestamp / this.clockRate) * 1000
    if (this.lastTransitMs !== undefined) {
      let d = Math.abs(transit - this.lastTransitMs)
      if (d > 10_000) d = 0 // timestamp jump (restart); not jitter
      this.jitterMs += (d - this.jitterMs) / 16
      // The estimate needs about half a second of packets before it means anything.
      if (this.s.received >= 25) this.updateTarget()
    }
    this.lastTransitMs = transit
  }

  private updateTarget(): void {
    const wanted = this.packetMs() + 3 * this.jitterMs + this.underrunBoostMs
    this.targetMs = clamp(Math.ceil(wanted / this.frameMs) * this.frameMs, this.minDelayMs, this.maxDelayMs)
  }

  private restart(): void {
    this.packets.clear()
    this.highestExt = -1
    this.nextExt = -1
    this.playing = false
    this.started = false
    this.lastTransitMs = undefined
    this.s.resets++
  }
}

const clamp = (v: number, lo: number, hi: number) => Math.min(hi, Math.max(lo, v))
