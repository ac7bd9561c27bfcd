// Inside a call worker: the calls it carries, each a LocalConversation on this thread's media
// engine and clock, driven by the main thread's control messages.
import { PortPoolExhaustedError, type BoundPorts } from '../../../realtime/media/index.ts'
import { fromMediaWire } from '../../../realtime/telephony/sdp/index.ts'
import { LocalConversation, type ConversationDeps, type ConversationEvents } from '../conversation/index.ts'
import type { KnowledgePassage, TransferOutcome } from '../conversation/index.ts'
import { PendingReplies, type CallEvent, type FromWorker, type Reply, type ToWorker } from './protocol.ts'

interface HostedCall {
  ports: BoundPorts
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
    if (m.t === 'shutdown') return void this.d.voice.close().finally(() => this.post({ t: 'shutdown' }))
    this.answer(m.rid, this.run(m))
  }

  private async run(m: Extract<ToWorker, { rid: number; cid: number }>): Promise<unknown> {
    if (m.t === 'place') {
      const ports = await this.d.media.allocatePorts()
      this.calls.set(m.cid, { ports })
      return ports.port
    }
    const call = this.calls.get(m.cid)
    if (!call) throw new Error(`no call ${m.cid} in this worker`)
    switch (m.t) {
      case 'start':
        call.conv = await LocalConversation.start(this.d, call.ports, { ...m.init, media: fromMediaWire(m.init.media) }, this.events(m.cid))
        return undefined
      case 'openLeg':
        return this.conv(call).openLeg()
      case 'connectLeg':
        return this.conv(call).connectLeg(fromMediaWire(m.media))
      case 'closeLeg':
        return this.conv(call).closeLeg()
      case 'close': {
        this.calls.delete(m.cid)
        return this.conv(call).close()
      }
    }
  }

  private conv(call: HostedCall): LocalConversation {
    if (!call.conv) throw new Error('the call has not started')
    return call.conv
  }

  private release(cid: number): void {
    const call = this.calls.get(cid)
    if (!call || call.conv) return
    this.calls.delete(cid)
    call.ports.release()
  }

  private answer(rid: number, work: Promise<unknown>): void {
    work.then(
      (value) => this.post({ t: 'reply', rid, ok: true, value }),
      (err: Error) => {
        const reply: Reply = { t: 'reply', rid, ok: false, error: err.message }
        if (err instanceof PortPoolExhaustedError) reply.code = 'ports_exhausted'
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
      turn: (text, latency) => event({ e: 'turn', text, latency }),
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
    await Promise.all(calls.map((c) => (c.conv ? c.conv.close().catch(() => {}) : c.ports.release())))
  }
}
