// Inside a call worker: the calls it carries, each a LocalConversation on this thread's media
// engine and clock, driven by the main thread's control messages.
import { PortPoolExhaustedError, type BoundPorts } from '../../../realtime/media/index.ts'
import { fromMediaWire, toMediaWire } from '../../../realtime/telephony/sdp/index.ts'
import { answerWebOffer, WebRtcOfferError, type WebPeer, type WebRtcOptions } from '../../../realtime/webrtc/index.ts'
import { LocalConversation, type ConversationDeps, type ConversationEvents } from '../conversation/index.ts'
import type { KnowledgePassage, TransferOutcome } from '../conversation/index.ts'
import { PendingReplies, type CallEvent, type FromWorker, type Reply, type ToWorker, type WebAnswerWire } from './protocol.ts'

/** A call of this worker: on RTP ports (SIP), or on a browser's peer answered here (web). */
interface HostedCall {
  ports?: BoundPorts
  peer?: WebPeer
  conv?: LocalConversation
}

export class CallHost {
  private readonly calls = new Map<number, HostedCall>()
  private readonly pending = new PendingReplies()

  constructor(
    private readonly d: ConversationDeps,
    private readonly post: (m: FromWorker) => void,
  ) {}

  get size(): number {
    return this.calls.size
  }

  handle(m: ToWorker): void {
    if (m.t === 'engines') return
    if (m.t === 'reply') return this.pending.settle(m)
    if (m.t === 'release') return this.release(m.cid)
    if (m.t === 'update') return this.calls.get(m.cid)?.conv?.update(fromMediaWire(m.media))
    if (m.t === 'dtmf') return this.calls.get(m.cid)?.conv?.pushDtmf(m.digit)
    if (m.t === 'callerHungUp') return this.calls.get(m.cid)?.conv?.callerHungUp()
    if (m.t === 'webClose') return this.calls.get(m.cid)?.peer?.close(m.reason)
    if (m.t === 'shutdown') return void Promise.allSettled([this.d.voice.close(), this.d.media.stop()]).finally(() => this.post({ t: 'shutdown' }))
    this.answer(m.rid, this.run(m))
  }

  private async run(m: Extract<ToWorker, { rid: number; cid: number }>): Promise<unknown> {
    if (m.t === 'place') {
      if (m.web) {
        this.calls.set(m.cid, {})
        return 0
      }
      const ports = await this.d.media.allocatePorts()
      this.calls.set(m.cid, { ports })
      return ports.port
    }
    const call = this.calls.get(m.cid)
    if (!call) throw new Error(`no call ${m.cid} in this worker`)
    switch (m.t) {
      case 'answerWeb':
        return this.answerWeb(m.cid, call, m.offer, m.options)
      case 'webCandidate':
        return call.peer?.addCandidate(m.candidate)
      case 'start': {
        const where = call.peer?.link ?? call.ports
        if (!where) throw new Error('a web call starts after its offer is answered')
        call.conv = await LocalConversation.start(this.d, where, { ...m.init, media: fromMediaWire(m.init.media) }, this.events(m.cid))
        return undefined
      }
      case 'openLeg':
        return this.conv(call).openLeg()
      case 'connectLeg':
        return this.conv(call).connectLeg(fromMediaWire(m.media))
      case 'closeLeg':
        return this.conv(call).closeLeg()
      case 'act':
        return this.conv(call).act(m.action)
      case 'close': {
        this.calls.delete(m.cid)
        try {
          return await this.conv(call).close()
        } finally {
          call.peer?.close('local_hangup')
        }
      }
    }
  }

  private async answerWeb(cid: number, call: HostedCall, offer: string, options: WebRtcOptions): Promise<WebAnswerWire> {
    const peer = (call.peer = await answerWebOffer(offer, options))
    peer.onConnected(() => this.post({ t: 'web', cid, state: 'connected' }))
    peer.onEnded((reason) => this.post({ t: 'web', cid, state: 'ended', reason }))
    return { sdp: peer.answerSdp, media: toMediaWire(peer.media) }
  }

  private conv(call: HostedCall): LocalConversation {
    if (!call.conv) throw new Error('the call has not started')
    return call.conv
  }

  private release(cid: number): void {
    const call = this.calls.get(cid)
    if (!call || call.conv) return
    this.calls.delete(cid)
    call.ports?.release()
    call.peer?.close('failed')
  }

  private answer(rid: number, work: Promise<unknown>): void {
    work.then(
      (value) => this.post({ t: 'reply', rid, ok: true, value }),
      (err: Error) => {
        const reply: Reply = { t: 'reply', rid, ok: false, error: err.message }
        if (err instanceof PortPoolExhaustedError) reply.code = 'ports_exhausted'
        if (err instanceof WebRtcOfferError) reply.code = 'offer_refused'
        this.post(reply)
      },
    )
  }

  private events(cid: number): ConversationEvents {
    const event = (e: CallEvent) => this.post({ t: 'event', cid, event: e })
    return {
      answered: (info) => event({ e: 'answered', info }),
      hangup: (reason) => event({ e: 'hangup', reason }),
      gateHangup: () => event({ e: 'gateHangup' }),
      providerFailed: (provider, error) => event({ e: 'providerFailed', provider, error }),
      turn: (text, latency, turn) => event({ e: 'turn', text, latency, turn }),
      turnMeasured: (turn, latency) => event({ e: 'turnMeasured', turn, latency }),
      transcribed: (item) => event({ e: 'transcribed', item }),
      transfer: (target) => {
        const { rid, reply } = this.pending.open<TransferOutcome>()
        this.post({ t: 'transfer', rid, cid, target })
        return reply
      },
      optOut: () => {
        const { rid, reply } = this.pending.open<void>()
        this.post({ t: 'optOut', rid, cid })
        return reply
      },
      searchKnowledge: (query, opts) => {
        const { rid, reply } = this.pending.open<KnowledgePassage[]>()
        this.post({ t: 'searchKnowledge', rid, cid, query, opts })
        return reply
      },
      failed: () => {},
    }
  }

  /** The worker is stopping: every call's media closes (recordings finalised). */
  async closeAll(): Promise<void> {
    const calls = [...this.calls.values()]
    this.calls.clear()
    await Promise.all(
      calls.map(async (c) => {
        if (c.conv) await c.conv.close().catch(() => {})
        else c.ports?.release()
        c.peer?.close('shutdown')
      }),
    )
  }
}
