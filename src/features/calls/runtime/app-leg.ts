// The far end of a call that is not a SIP dialog: a browser's WebRTC peer or a program on the
// media-stream WebSocket. It speaks the few events of a SIP call a live call listens to (ended,
// dtmf), so the call path after it is the same for every leg type.
import { Emitter, type CallEvents, type EndInfo, type InboundCall, type OutboundCall } from '../../../realtime/telephony/sip/index.ts'

export type AppLegKind = 'web' | 'stream'

/** The events of a call's far end a live call listens to. */
export type LegEvents = Pick<CallEvents, 'ended' | 'dtmf' | 'hold' | 'unhold'>

export class AppLeg extends Emitter<LegEvents> {
  private ended = false
  /** A web call's peer that never connected, and why (set before it ends as failed). */
  failure?: 'ice_failed' | 'dtls_failed'

  constructor(
    readonly kind: AppLegKind,
    /** Where the far end's signalling came from, for the call's log line. */
    readonly remote: { transport: string; address: string; port: number },
    /** Closes the peer or socket: our side hangs up. */
    private readonly close: (reason: string) => void,
  ) {
    super()
  }

  get state(): 'active' | 'ended' {
    return this.ended ? 'ended' : 'active'
  }

  /** We hang up: the far end is closed, then the call ends. */
  hangup(): void {
    if (this.ended) return
    this.close('local_hangup')
    this.finish({ reason: 'local_hangup' })
  }

  /** The far end went away (closed the peer, the socket, or said stop). */
  farEndLeft(reason: EndInfo['reason'] = 'remote_hangup'): void {
    if (this.ended) return
    this.close(reason)
    this.finish({ reason })
  }

  /** A digit the far end sent as a message rather than in its audio. */
  digit(digit: string): void {
    if (!this.ended) this.emit('dtmf', digit, 100)
  }

  private finish(info: EndInfo): void {
    this.ended = true
    this.emit('ended', info)
  }
}

/** A call's far end: a SIP dialog, or an app leg. */
export type CallLeg = InboundCall | OutboundCall | AppLeg

/** Where the far end's signalling comes from: its media may come from there too. */
export const remoteOf = (leg: CallLeg) => (leg instanceof AppLeg ? leg.remote : 'info' in leg ? leg.info.remote : leg.remote)

/** Every leg emits at least these; a SIP call's emitter has more events than an app leg's. */
export const legEvents = (leg: CallLeg): Emitter<LegEvents> => leg as unknown as Emitter<LegEvents>
