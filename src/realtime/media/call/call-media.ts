// The media of one call, as the voice engine sees it: 16 kHz mono 20 ms frames in (onAudio),
// a flushable output queue out, DTMF events, hold, stats, and the stereo recording.

import type { NegotiatedMedia } from '../../telephony/sdp/index.ts'
import type { MediaClock, Subscription } from '../clock.ts'
import { DtmfReceiver, dtmfPackets, InbandDtmfDetector, isDtmfDigit, type DtmfEvent, type DtmfSendPacket } from '../dtmf/index.ts'
import { JitterBuffer, type JitterStats } from '../jitter/index.ts'
import type { StereoRecorder } from '../recorder/index.ts'
import { RtpSession, type BoundPorts, type RtpPacket, type RtpSessionStats, type RtpSrtpKeys } from '../rtp/index.ts'
import { createAudioCodec, ENGINE_RATE, type AudioCodec } from './codec-adapter.ts'
import { dtmfTones } from './dtmf-tones.ts'
import { OutputQueue, type PlaybackHandle } from './output-queue.ts'
import { PacingHistogram } from './pacing.ts'
import { SendTimeline } from './send-timeline.ts'
import { ReceiveWatch, type ReceiveWatchStats } from './receive-watch.ts'
import type { MediaLink, MediaLinkFactory } from './link.ts'
import type { Pacer } from '../pacer/index.ts'

export const FRAME_MS = 20
export const FRAME_SAMPLES = (ENGINE_RATE * FRAME_MS) / 1000
const SILENCE = new Int16Array(FRAME_SAMPLES)
/** Silent frames sent after the agent stops, so the far end's decoder winds down to silence. */
const DTX_HANGOVER_FRAMES = 3
/** A discontinuous stream still sends a silent frame this often (libopus's DTX does the same). */
export const DTX_KEEPALIVE_MS = 400

export interface CallMediaOptions {
  /** A SIP call's UDP ports (an RtpSession is opened on them), or another leg's link. */
  ports?: BoundPorts
  link?: MediaLinkFactory
  clock: MediaClock
  /** Sends each packet of a SIP call at its instant from a thread of its own (prepared `leadMs` ahead). */
  pacer?: Pacer
  media: NegotiatedMedia
  /** Addresses besides the SDP's that may start the stream (the SIP peer's address). */
  trustedAddresses?: string[]
  recorder?: StereoRecorder
  jitter?: { minDelayMs?: number; maxDelayMs?: number }
  /** Run the Goertzel detector on incoming audio (default: only when telephone-event was not negotiated). */
  inbandDtmf?: boolean
  /** `delayMs`: about how long this audio waited in the jitter buffer since its packet arrived. */
  onAudio?: (frame: Int16Array, delayMs: number) => void
  onDtmf?: (event: DtmfEvent) => void
  onBye?: () => void
  onClosed?: () => void
  /** No packet from the far end for this long, while not on hold, calls onMediaTimeout once (0 or absent: never). */
  rtpTimeoutMs?: number
  onMediaTimeout?: () => void
  /** Monotonic ms for the receive watch; performance.now by default. */
  now?: () => number
}

export interface CallMediaStats {
  rtp: RtpSessionStats
  jitter: JitterStats
  pacing: { packets: number; p50Ms: number; p99Ms: number; maxMs: number }
  ignoredPackets: number
  receive: ReceiveWatchStats
  /** The suite of a link's own SRTP (DTLS-SRTP), which rtp.srtp does not count. */
  linkSrtpSuite?: string
}

const gcd = (a: number, b: number): number => (b === 0 ? a : gcd(b, a % b))
const canSend = (m: NegotiatedMedia) => m.direction === 'sendrecv' || m.direction === 'sendonly'
const canReceive = (m: NegotiatedMedia) => m.direction === 'sendrecv' || m.direction === 'recvonly'
/** The SDES keys the offer/answer agreed, when it agreed SRTP (a structural read: plain media has none). */
const srtpOf = (m: NegotiatedMedia): RtpSrtpKeys | undefined => (m as { srtp?: RtpSrtpKeys }).srtp
/** Media is due from the far end: neither side holds the call. */
const mediaDue = (m: NegotiatedMedia) => m.direction === 'sendrecv' && !m.remoteHold

export class CallMedia {
  private media: NegotiatedMedia
  private codec: AudioCodec
  private jb: JitterBuffer
  private readonly session: MediaLink
  private readonly queue = new OutputQueue(ENGINE_RATE)
  private readonly dtmfIn: DtmfReceiver
  private inband: InbandDtmfDetector | undefined
  private sub: Subscription
  private startMs: number | undefined
  private nextSendMs = -Infinity
  private nextPlayoutMs = -Infinity
  private inFifo = new Int16Array(FRAME_SAMPLES * 8)
  private inLen = 0
  private outBuf: Int16Array
  private readonly dtmfOut: { packets: DtmfSendPacket[]; gapPackets: number }[] = []
  private dtmfTs: number | undefined
  private sentAny = false
  private lastHadAudio = false
  private resumeMarker = false
  /** Silent frames sent in a row, and when the last packet left (discontinuous links). */
  private silentRun = 0
  private lastSentMs = -Infinity
  private readonly timeline = new SendTimeline()
  private ignored = 0
  private readonly pacing = new PacingHistogram()
  private closed = false
  /** Only a SIP call's own UDP socket is paced; other links send as they are given packets. */
  private readonly pacer: Pacer | undefined
  private readonly watch: ReceiveWatch
  private readonly now: () => number

  constructor(private readonly opts: CallMediaOptions) {
    this.pacer = opts.ports ? opts.pacer : undefined
    this.media = opts.media
    this.now = opts.now ?? (() => performance.now())
    this.codec = createAudioCodec(opts.media.codec.name)
    this.jb = this.newJitterBuffer()
    this.dtmfIn = new DtmfReceiver(opts.media.telephoneEvent?.clockRate ?? 8000)
    if (opts.inbandDtmf ?? !opts.media.telephoneEvent) this.inband = new InbandDtmfDetector(ENGINE_RATE)
    this.outBuf = new Int16Array((ENGINE_RATE * opts.media.ptimeMs) / 1000)
    const handlers = { onPacket: (p: RtpPacket, at: number) => this.onPacket(p, at), onBye: opts.onBye }
    if (opts.link) this.session = opts.link(handlers)
    else if (opts.ports) {
      this.session = new RtpSession({
        ports: opts.ports,
        remote: this.remoteOf(opts.media),
        clockRate: this.codec.clockRate,
        trustedAddresses: opts.trustedAddresses,
        srtp: srtpOf(opts.media),
        pacer: this.pacer,
        onPaced: (lateMs) => this.pacing.record(lateMs),
        ...handlers,
      })
    } else throw new TypeError('call media needs ports or a link')
    this.watch = new ReceiveWatch(this.session.quietAllowed ? 0 : (opts.rtpTimeoutMs ?? 0))
    this.watch.expect(mediaDue(opts.media), this.now())
    this.sub = this.subscribe()
  }

  /** The RTP port of a SIP call's media (0 for other links). */
  get localPort(): number {
    return this.opts.ports?.port ?? 0
  }

  /** Queues agent audio (16 kHz mono PCM); the handle reports how much of it was played. */
  play(pcm16k: Int16Array): PlaybackHandle {
    const handle = this.queue.enqueue(pcm16k)
    if (this.closed) this.queue.flush() // nothing plays after hang-up; the handle says so at once
    else this.startTalkspurtNow()
    return handle
  }

  /** Barge-in: drops all queued agent audio at once (and tells a link that buffers it). */
  flush() {
    const dropped = this.queue.flush()
    // the voice session feeds the queue just in time: audio being sent means the agent was talking
    if (dropped.length > 0 || this.lastHadAudio) this.session.flushed?.()
    return dropped
  }

  get queuedMs(): number {
    return this.queue.pendingMs
  }

  /** Sends digits as RFC 4733 events, or as in-band tones when the peer did not offer them. */
  sendDtmf(digits: string, durationMs = 100): void {
    if (this.closed) throw new Error('call media is closed')
    const list = [...digits]
    const bad = list.find((d) => !isDtmfDigit(d))
    if (bad !== undefined || list.length === 0) throw new RangeError(`not DTMF digits: ${JSON.stringify(digits)}`)
    const te = this.media.telephoneEvent
    if (!te) {
      for (const d of list) this.queue.enqueue(dtmfTones(d, durationMs, ENGINE_RATE))
      return
    }
    for (const d of list) {
      this.dtmfOut.push({
        packets: dtmfPackets(d, { durationMs, clockRate: te.clockRate, packetMs: this.media.ptimeMs }),
        gapPackets: Math.ceil(60 / this.media.ptimeMs),
      })
    }
  }

  /** DTMF that arrived by SIP INFO surfaces as the same event. */
  injectDtmf(digit: string, durationMs = 100): void {
    if (!isDtmfDigit(digit)) throw new RangeError(`not a DTMF digit: ${JSON.stringify(digit)}`)
    this.opts.onDtmf?.({ digit: digit.toUpperCase(), durationMs, source: 'sip-info' })
  }

  /** A re-INVITE: new remote address, direction (hold/unhold), ptime, codec or SRTP keys. */
  update(media: NegotiatedMedia): void {
    if (this.closed) throw new Error('call media is closed')
    // first, so keys that do not fit their suite leave the call as it was
    this.session.setSrtp?.(srtpOf(media))
    const wasSending = canSend(this.media)
    if (media.codec.name !== this.media.codec.name || media.codec.payloadType !== this.media.codec.payloadType) {
      this.codec.close()
      this.codec = createAudioCodec(media.codec.name)
      this.jb = this.newJitterBuffer()
    }
    const ptimeChanged = media.ptimeMs !== this.media.ptimeMs
    if (ptimeChanged) this.outBuf = new Int16Array((ENGINE_RATE * media.ptimeMs) / 1000)
    this.media = media
    if (ptimeChanged) {
      this.sub.unsubscribe()
      this.sub = this.subscribe()
    }
    this.session.setRemote?.(this.remoteOf(media))
    this.watch.expect(mediaDue(media), this.now())
    if (!wasSending && canSend(media)) this.resumeMarker = true
  }

  stats(): CallMediaStats {
    return {
      rtp: this.session.stats(),
      jitter: this.jb.stats(),
      pacing: { packets: this.pacing.count, p50Ms: this.pacing.percentile(50), p99Ms: this.pacing.percentile(99), maxMs: this.pacing.maxMs },
      ignoredPackets: this.ignored,
      receive: this.watch.stats(this.now()),
      linkSrtpSuite: this.session.srtpSuite?.(),
    }
  }

  get pacingHistogram(): PacingHistogram {
    return this.pacing
  }

  /** Stops media, sends RTCP BYE, frees the ports and finalises the recording. */
  async close(): Promise<{ recording?: { path: string; durationMs: number }; stats: CallMediaStats }> {
    if (this.closed) throw new Error('call media already closed')
    this.closed = true
    this.sub.unsubscribe()
    this.queue.flush()
    // the pacer may still hold packets for this socket: they go before the RTCP BYE, and before
    // the socket closes and its descriptor can be reused
    if (this.pacer) await this.pacer.settled()
    const stats = this.stats()
    this.session.close()
    this.opts.ports?.release()
    this.codec.close()
    try {
      const recording = await this.opts.recorder?.close()
      return { recording, stats }
    } finally {
      this.opts.onClosed?.()
    }
  }

  private newJitterBuffer(): JitterBuffer {
    return new JitterBuffer({ clockRate: this.codec.clockRate, frameMs: FRAME_MS, ...this.opts.jitter })
  }

  private remoteOf(m: NegotiatedMedia) {
    return { address: m.remoteAddress, rtpPort: m.remotePort, rtcpPort: m.remoteRtcpPort, rtcpMux: m.rtcpMux }
  }

  private onPacket(p: RtpPacket, arrivalMs: number): void {
    this.watch.packet(p.payload.length, this.now())
    if (!canReceive(this.media)) return
    const te = this.media.telephoneEvent
    if (te && p.payloadType === te.payloadType) {
      for (const ev of this.dtmfIn.push(p.payload, p.timestamp, arrivalMs)) this.opts.onDtmf?.(ev)
    } else if (p.payloadType === this.media.codec.payloadType) {
      this.jb.push(p, arrivalMs)
    } else this.ignored++ // comfort noise and anything not negotiated
  }

  /** On the media clock at the period both the packet time and the 20 ms playout frame fit. */
  private subscribe(): Subscription {
    return this.opts.clock.subscribe(
      { send: (scheduled) => this.onSendStep(scheduled), work: (scheduled, now) => this.onWorkStep(scheduled, now) },
      gcd(this.media.ptimeMs, FRAME_MS),
    )
  }

  // Steps are due on a fixed grid; half a millisecond of slack absorbs float error only.
  private onSendStep(scheduled: number): void {
    this.startMs ??= scheduled
    // with a pacer, this step prepares the packet of the slot `leadMs` ahead, which it sends then
    const slot = scheduled + (this.pacer?.leadMs ?? 0)
    if (slot + 0.5 < this.nextSendMs) return
    this.nextSendMs = slot + this.media.ptimeMs
    this.sendPacket(slot)
  }

  private onWorkStep(scheduled: number, now: number): void {
    this.startMs ??= scheduled
    if (scheduled + 0.5 < this.nextPlayoutMs) return
    this.nextPlayoutMs = scheduled + FRAME_MS
    this.playout(now)
    if (this.watch.timedOut(this.now())) this.opts.onMediaTimeout?.()
  }

  private playout(now: number): void {
    // the packet played now arrived when the newest buffered one was some frames younger; half a
    // playout step of phase on average
    const delayMs = Math.max(0, this.jb.bufferedMs() - FRAME_MS / 2)
    while (this.inLen < FRAME_SAMPLES) {
      const r = this.jb.pop()
      const pcm =
        r.kind === 'packet' ? this.codec.decode(r.packet.payload) : r.kind === 'lost' ? this.codec.conceal(r.durationSamples) : SILENCE.subarray(0, FRAME_SAMPLES - this.inLen)
      if (this.inLen + pcm.length > this.inFifo.length) {
        const bigger = new Int16Array(this.inLen + pcm.length + FRAME_SAMPLES)
        bigger.set(this.inFifo.subarray(0, this.inLen))
        this.inFifo = bigger
      }
      this.inFifo.set(pcm, this.inLen)
      this.inLen += pcm.length
    }
    const frame = this.inFifo.slice(0, FRAME_SAMPLES)
    this.inFifo.copyWithin(0, FRAME_SAMPLES, this.inLen)
    this.inLen -= FRAME_SAMPLES
    this.opts.recorder?.writeLeft(frame)
    for (const ev of this.dtmfIn.flush(now)) this.opts.onDtmf?.(ev)
    if (this.inband) for (const ev of this.inband.push(frame)) this.opts.onDtmf?.(ev)
    this.opts.onAudio?.(frame, delayMs)
  }

  private rtpTsAt(ms: number): number {
    return Math.round(((ms - this.startMs!) * this.codec.clockRate) / 1000)
  }

  /** A reply after silence leaves as soon as a packet of it exists, not at the next slot. */
  private startTalkspurtNow(): void {
    const sending = canSend(this.media) && !this.media.remoteHold
    if (!sending || !this.sentAny || this.lastHadAudio || this.dtmfOut.length > 0) return
    // and the next packet too, or the next slot would find the queue empty: a hole in the reply
    if (this.queue.pendingSamples < 2 * this.outBuf.length) return
    const ts = this.timeline.early(this.rtpTsAt(this.nextSendMs), (this.codec.clockRate * this.media.ptimeMs) / 1000)
    if (ts === undefined) return
    this.queue.read(this.outBuf)
    this.lastHadAudio = true
    this.opts.recorder?.writeRight(this.outBuf)
    this.session.send(this.media.codec.payloadType, this.codec.encode(this.outBuf), ts, true, this.pacer ? performance.now() : undefined)
  }

  private sendPacket(scheduled: number): void {
    const clockTs = this.rtpTsAt(scheduled)
    const sending = canSend(this.media) && !this.media.remoteHold
    const silence = this.outBuf.fill(0)
    if (sending && this.dtmfOut.length > 0) {
      const slot = this.timeline.slot(clockTs, true)
      const paced = slot.send && this.sendDtmfPacket(slot.timestamp, scheduled)
      this.opts.recorder?.writeRight(silence)
      if (!paced) this.pacing.record(performance.now() - scheduled)
      return
    }
    const hadAudio = sending ? this.queue.read(this.outBuf) > 0 : false
    const talkspurt = hadAudio && !this.lastHadAudio
    this.lastHadAudio = hadAudio
    // the packet sent ahead of its slot was recorded then: its slot's share is the one given back
    const slot = sending ? this.timeline.slot(clockTs, hadAudio) : this.timeline.pause() ? { send: false as const } : undefined
    if (slot && !slot.send) return
    this.opts.recorder?.writeRight(this.outBuf)
    if (!sending || !slot) return
    this.silentRun = hadAudio ? 0 : this.silentRun + 1
    if (this.skipsSilence(scheduled)) return
    this.lastSentMs = scheduled
    const marker = !this.sentAny || this.resumeMarker || talkspurt
    const paced = this.session.send(this.media.codec.payloadType, this.codec.encode(this.outBuf), slot.timestamp, marker, this.dueOf(scheduled)) === true
    if (!paced) this.pacing.record(performance.now() - scheduled)
    this.sentAny = true
    this.resumeMarker = false
  }

  /** On a discontinuous link, a silent frame past the hangover is not sent, bar the keepalive. */
  private skipsSilence(scheduled: number): boolean {
    if (!this.session.discontinuous || !this.sentAny || this.resumeMarker) return false
    return this.silentRun > DTX_HANGOVER_FRAMES && scheduled - this.lastSentMs < DTX_KEEPALIVE_MS
  }

  /** The due instant handed to the session: the slot's with a pacer, none (send now) without. */
  private dueOf(slotMs: number): number | undefined {
    return this.pacer ? slotMs : undefined
  }

  /** True when the packet was queued to the pacer. */
  private sendDtmfPacket(rtpTs: number, slotMs: number): boolean {
    const head = this.dtmfOut[0]!
    const next = head.packets.shift()
    if (next) {
      this.dtmfTs ??= rtpTs
      return this.session.send(this.media.telephoneEvent!.payloadType, next.payload, this.dtmfTs, next.marker, this.dueOf(slotMs)) === true
    }
    // The event is over: keep the audio clock running with silence for the inter-digit gap.
    this.dtmfTs = undefined
    const paced = this.session.send(this.media.codec.payloadType, this.codec.encode(this.outBuf), rtpTs, head.gapPackets === Math.ceil(60 / this.media.ptimeMs), this.dueOf(slotMs)) === true
    if (--head.gapPackets <= 0) this.dtmfOut.shift()
    return paced
  }
}
