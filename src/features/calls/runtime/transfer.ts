// transfer_call: a blind REFER first; when the peer refuses REFER, a new leg through the same
// trunk, bridged to the caller by the appliance until either side hangs up.
import type { Logger } from '../../../platform/log.ts'
import { acceptAnswer, createMediaOffer, type LocalMediaOptions } from '../../../realtime/telephony/sdp/index.ts'
import type { NumberRoute } from '../../numbers/index.ts'
import { targetTransport, type InboundCall, type OutboundCall, type TransferState, type UserAgent } from '../../../realtime/telephony/sip/index.ts'
import type { Conversation } from '../conversation/index.ts'
import { callEncryption } from './encryption.ts'
import { dialTarget } from './target.ts'
import type { TransferFailure, TransferOutcome } from '../conversation/index.ts'

/** What a transfer needs of the call it moves: its dialog, trunk and conversation (which bridges the leg's audio). */
export interface TransferableCall {
  readonly id: string
  readonly sip: InboundCall | OutboundCall
  readonly route: NumberRoute
  readonly conversation: Conversation | undefined
  hangup(): void
}

/** REFER statuses that mean "this peer does not do transfers", not "the target failed". */
const REFER_UNSUPPORTED = new Set([403, 405, 420, 481, 488, 501, 603])

interface Bridge {
  leg: OutboundCall
  connected: boolean
}

export class Transferrer {
  private readonly bridges = new Map<TransferableCall, Bridge>()

  constructor(
    private readonly ua: UserAgent,
    /** Our SDP options for a leg whose RTP port is `port`. */
    private readonly sdpOptions: (port: number) => LocalMediaOptions,
    private readonly log: Logger,
    private readonly timeoutMs = 30_000,
  ) {}

  async transfer(call: TransferableCall, target: string): Promise<TransferOutcome> {
    if (call.sip.state !== 'active') return { ok: false, reason: 'call_not_active' }
    let uri: string
    try {
      uri = dialTarget(call.route, target)
    } catch {
      return { ok: false, reason: 'invalid_target' }
    }
    const refer = await this.refer(call, uri)
    if (refer.ok || refer.reason !== 'refused') return refer
    return this.bridge(call, uri)
  }

  /** Hangs up a bridged leg when its call ends. */
  async release(call: TransferableCall): Promise<void> {
    const b = this.bridges.get(call)
    if (!b) return
    this.bridges.delete(call)
    if (b.leg.state !== 'ended') b.leg.hangup()
    await call.conversation?.closeLeg().catch(() => {})
  }

  private refer(call: TransferableCall, uri: string): Promise<TransferOutcome> {
    return new Promise((resolve) => {
      let accepted = false
      const done = (o: TransferOutcome) => {
        clearTimeout(timer)
        call.sip.off('transfer', onTransfer)
        resolve(o)
      }
      const timer = setTimeout(() => done({ ok: false, reason: accepted ? 'no_answer' : 'failed' }), this.timeoutMs)
      const onTransfer = (state: TransferState, status?: number) => {
        if (state === 'accepted' || state === 'trying') accepted = true
        else if (state === 'succeeded') done({ ok: true, via: 'refer' })
        else if (!accepted && (status === undefined || REFER_UNSUPPORTED.has(status))) done({ ok: false, reason: 'refused' })
        else done({ ok: false, reason: failureOf(status) })
      }
      call.sip.on('transfer', onTransfer)
      call.sip.transfer(uri)
    })
  }

  private async bridge(call: TransferableCall, uri: string): Promise<TransferOutcome> {
    const c = call.conversation
    if (!c) return { ok: false, reason: 'call_not_active' }
    // the leg goes through the same number, under its media encryption
    const encryption = callEncryption(call.route, targetTransport(uri))
    if ('refused' in encryption) {
      this.log.warn({ callId: call.id, reason: encryption.refused }, 'transfer leg not placed: media encryption')
      return { ok: false, reason: 'failed' }
    }
    const port = await c.openLeg().catch(() => undefined)
    if (port === undefined) return { ok: false, reason: 'failed' }
    const local = { ...this.sdpOptions(port), encryption: encryption.encryption }
    const offer = createMediaOffer(local)
    const sip = call.route.sip
    let leg: OutboundCall
    try {
      leg = await this.ua.placeCall({
        target: uri,
        from: { user: call.route.e164 },
        sdp: offer.sdp,
        credentials: sip?.username && sip.password ? { username: sip.username, password: sip.password } : undefined,
      })
    } catch (err) {
      await c.closeLeg().catch(() => {})
      this.log.warn({ err, callId: call.id }, 'transfer leg could not be placed')
      return { ok: false, reason: 'failed' }
    }
    const bridge: Bridge = { leg, connected: false }
    this.bridges.set(call, bridge)
    return new Promise<TransferOutcome>((resolve) => {
      leg.on('answered', async (sdp) => {
        try {
          await c.connectLeg(acceptAnswer(sdp, local, offer))
          bridge.connected = true
          resolve({ ok: true, via: 'bridge' })
        } catch (err) {
          this.log.warn({ err, callId: call.id }, 'transfer leg media failed')
          leg.hangup()
          resolve({ ok: false, reason: 'failed' })
        }
      })
      leg.on('ended', (info) => {
        if (!bridge.connected) {
          this.bridges.delete(call)
          void c.closeLeg().catch(() => {})
          resolve({ ok: false, reason: failureOf(info.status) })
        } else if (call.sip.state !== 'ended') call.hangup()
      })
    })
  }
}

function failureOf(status: number | undefined): TransferFailure {
  if (status === 486 || status === 600) return 'busy'
  if (status === 480 || status === 408 || status === 487) return 'no_answer'
  if (status === 404 || status === 484 || status === 604) return 'invalid_target'
  return 'failed'
}
