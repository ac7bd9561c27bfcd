// One media-stream WebSocket (docs/media-stream.md): the client's messages in, the call's audio
// and events out. The call runs on the ordinary call path (CallRuntime.startAppCall) as type
// `stream`, with this session as its media link: the media clock's 20 ms send step carries the
// agent's audio out and takes the caller's next 20 ms in.
import type { AgentSnapshot } from '../../agents/index.ts'
import { AppLeg, CallRefused, type AppCallRequest } from '../../calls/index.ts'
import { AppError } from '../../../platform/errors.ts'
import type { Logger } from '../../../platform/log.ts'
import { packetCountStats, type MediaLink, type MediaLinkHandlers } from '../../../realtime/media/index.ts'
import { CODEC_DEFAULTS, type NegotiatedMedia } from '../../../realtime/telephony/sdp/index.ts'
import { InboundAudio } from './inbound.ts'
import { CLOSE, closeReason, FORMATS, parseClientMessage, ServerMessages, type FormatSpec, type StreamFormat } from './protocol.ts'

/** What a session needs of Bun's ServerWebSocket. */
export interface StreamSocket {
  /** Bun: bytes sent, -1 when queued behind backpressure, 0 when dropped. */
  send(data: string | Uint8Array): number
  getBufferedAmount(): number
  close(code?: number, reason?: string): void
  terminate(): void
}

export interface StreamSessionOptions {
  format: StreamFormat
  agent: AgentSnapshot
  /** The member's user id or the key's id: the call's `from`. */
  from: string
  workspaceId: string
  draft: boolean
  remote: { address: string; port: number }
  startCall(req: AppCallRequest): Promise<{ callId: string }>
  log: Logger
  /** Once, when the socket has closed. */
  onDone(): void
  /** How long a closed socket may wait for its client to answer the close (default 5 s). */
  closeGraceMs?: number
}

/** Caller audio a client may send ahead of real time before it is refused. */
export const MAX_QUEUED_MS = 20_000
/** Marks waiting for their audio. */
export const MAX_MARKS = 1000

const randomU32 = () => crypto.getRandomValues(new Uint32Array(1))[0]!
const randomHex = (bytes: number) => [...crypto.getRandomValues(new Uint8Array(bytes))].map((b) => b.toString(16).padStart(2, '0')).join('')

export class StreamSession {
  readonly streamSid = `MZ${randomHex(16)}`
  readonly leg: AppLeg
  private readonly spec: FormatSpec
  private readonly messages: ServerMessages
  private readonly inbound: InboundAudio
  private ws?: StreamSocket
  private callId?: string
  /** Why the far end left before the call had started; told to the call once it has. */
  private leftEarly?: 'remote_hangup' | 'failed'
  private linked = false
  private started = false
  private closing = false
  private socketClosed = false
  private grace?: ReturnType<typeof setTimeout>

  constructor(private readonly o: StreamSessionOptions) {
    this.spec = FORMATS[o.format]
    this.messages = new ServerMessages(this.streamSid)
    const maxQueuedBytes = (MAX_QUEUED_MS / 20) * this.spec.frameBytes
    this.inbound = new InboundAudio(this.spec.frameBytes, this.spec.codec === 'PCMU' ? 0xff : 0, { maxQueuedBytes, maxMarks: MAX_MARKS })
    this.leg = new AppLeg('stream', { transport: 'websocket', ...o.remote }, (reason) => this.legClosed(reason))
  }

  /** The media the call runs with: the format's codec at 20 ms, no RTP addresses. */
  media(): NegotiatedMedia {
    return {
      remoteAddress: '0.0.0.0',
      remotePort: 0,
      remoteRtcpPort: 0,
      rtcpMux: true,
      codec: { ...CODEC_DEFAULTS[this.spec.codec] },
      ptimeMs: 20,
      direction: 'sendrecv',
      remoteHold: false,
    }
  }

  /** The socket is open: greet the client and start the call. */
  async open(ws: StreamSocket): Promise<void> {
    this.ws = ws
    this.send(this.messages.connected())
    const { agent, from, draft } = this.o
    let callId: string
    try {
      ;({ callId } = await this.o.startCall({ leg: this.leg, agent, from, media: this.media(), link: (h) => this.link(h), connected: Promise.resolve(), draft }))
    } catch (err) {
      const busy = err instanceof CallRefused || (err instanceof AppError && err.status === 503)
      if (!busy) this.o.log.error({ err }, 'a media stream could not start its call')
      this.closeSocket(busy ? CLOSE.tryAgainLater : CLOSE.serverError, busy ? `the appliance takes no calls now (${(err as Error).message}); try again later` : 'the call could not be started')
      return
    }
    this.callId = callId
    if (this.leftEarly) this.leg.farEndLeft(this.leftEarly)
    else this.maybeStart()
  }

  /** A message from the client, text or binary. */
  message(data: string | Uint8Array): void {
    if (this.closing) return
    const parsed = parseClientMessage(data, this.o.format)
    if (!parsed.ok) return this.fail(parsed.code, parsed.reason)
    const m = parsed.message
    switch (m.event) {
      case 'media':
        if (this.inbound.push(m.audio) === 'full') this.fail(CLOSE.policy, `more than ${MAX_QUEUED_MS / 1000} s of audio waits to be played; send audio at real time`)
        return
      case 'mark': {
        const r = this.inbound.mark(m.name)
        if (r === 'now') this.send(this.messages.mark(m.name))
        else if (r === 'too_many') this.fail(CLOSE.policy, `more than ${MAX_MARKS} marks wait for their audio`)
        return
      }
      case 'clear':
        for (const name of this.inbound.clear()) this.send(this.messages.mark(name))
        return
      case 'dtmf':
        this.leg.digit(m.digit)
        return
      case 'stop':
        this.closeSocket(CLOSE.normal, 'stopped by the client')
        this.leave('remote_hangup')
        return
    }
  }

  /** The socket closed, from either side. */
  closed(code: number, reason: string): void {
    if (this.socketClosed) return
    this.socketClosed = true
    clearTimeout(this.grace)
    if (!this.closing) {
      this.closing = true
      this.o.log.debug({ callId: this.callId, code, reason }, 'media stream closed by the client')
      this.leave('remote_hangup')
    }
    this.o.onDone()
  }

  /** The call's media link: each 20 ms send step sends the agent's audio and takes the caller's. */
  private link(h: MediaLinkHandlers): MediaLink {
    this.linked = true
    this.maybeStart()
    const ssrc = randomU32()
    const payloadType = CODEC_DEFAULTS[this.spec.codec].payloadType
    const samples = this.spec.frameBytes / this.spec.bytesPerSample
    const sent = { packets: 0, octets: 0 }
    let received = 0
    let seq = randomU32() & 0xffff
    let ts = randomU32()
    let open = true
    return {
      // a program on the stream may only listen; its socket closing ends the call
      quietAllowed: true,
      send: (pt, payload, timestamp) => {
        if (!open) return
        if (pt === payloadType) {
          sent.packets++
          sent.octets += payload.length
          this.sendAudio(payload, (timestamp * 1000) / this.spec.mediaFormat.sampleRate)
        }
        const tick = this.inbound.tick()
        if (tick.packet) {
          received++
          h.onPacket({ marker: false, payloadType, sequenceNumber: seq, timestamp: ts, ssrc, csrcs: [], payload: tick.packet }, performance.now())
          seq = (seq + 1) & 0xffff
          ts = (ts + samples) >>> 0
        }
        for (const name of tick.marks) this.send(this.messages.mark(name))
      },
      // barge-in: the client drops the agent's audio it buffered
      flushed: () => this.send(this.messages.clear()),
      stats: () => packetCountStats(ssrc, sent, received),
      close: () => {
        open = false
      },
    }
  }

  private maybeStart(): void {
    if (this.started || !this.linked || !this.callId || this.closing) return
    this.started = true
    this.send(this.messages.start({ callSid: this.callId, accountSid: this.o.workspaceId, agentId: this.o.agent.agentId, format: this.o.format }))
  }

  private sendAudio(payload: Uint8Array, timestampMs: number): void {
    if (!this.started) return
    this.send(this.o.format === 'pcm16' ? payload : this.messages.media(payload, timestampMs))
  }

  /** Sends, and closes a client that has stopped reading rather than buffer for it without end. */
  private send(data: string | Uint8Array): void {
    if (this.closing || !this.ws) return
    this.ws.send(data)
    if (this.ws.getBufferedAmount() > this.spec.slowReaderBytes) this.fail(CLOSE.policy, 'the client is not reading: over 2 s of audio waits unsent')
  }

  /** Our side hung up (the agent, or the appliance stopping), or the call ended the leg. */
  private legClosed(reason: string): void {
    if (this.closing) return
    if (reason === 'local_hangup' && this.started && this.callId) this.send(this.messages.stop({ accountSid: this.o.workspaceId, callSid: this.callId }))
    this.closeSocket(CLOSE.normal, 'the call ended')
  }

  /** The client broke the protocol or its limits: close with the code, end the call. */
  private fail(code: number, reason: string): void {
    if (this.closing) return
    this.o.log.info({ callId: this.callId, code, reason }, 'media stream closed: client error')
    this.closeSocket(code, reason)
    this.leave('failed')
  }

  private closeSocket(code: number, reason: string): void {
    if (this.closing) return
    this.closing = true
    if (!this.ws || this.socketClosed) return
    this.ws.close(code, closeReason(reason))
    // the close frame waits behind what a slow reader has not read: cut it off in the end
    this.grace = setTimeout(() => this.socketClosed || this.ws?.terminate(), this.o.closeGraceMs ?? 5000)
    this.grace.unref?.()
  }

  /** The far end is gone: the call ends (once it has started; before, when it does). */
  private leave(reason: 'remote_hangup' | 'failed'): void {
    if (this.callId) this.leg.farEndLeft(reason)
    else this.leftEarly ??= reason
  }
}
