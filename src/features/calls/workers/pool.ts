// CALL_WORKERS call workers, each carrying whole calls: a new call goes to the least loaded
// one. Calls that must stay on this thread (an answer gate hears their frames) go to `local`.
import type { Config } from '../../../platform/config/index.ts'
import type { WebRtcOptions } from '../../../realtime/webrtc/index.ts'
import { workerScript } from '../../../platform/embedded/index.ts'
import type { Logger } from '../../../platform/log.ts'
import type { SharedEnginePorts } from '../../../realtime/voice/index.ts'
import { PortPoolExhaustedError } from '../../../realtime/media/index.ts'
import { fromMediaWire, toMediaWire } from '../../../realtime/telephony/sdp/index.ts'
import type { CallPlacement, CallPlacer, ConversationEvents, ConversationInit, PlaceOptions } from '../conversation/index.ts'
import type { WebAnswerWire, WorkerStats } from './protocol.ts'
import { RemoteConversation, remoteWebLeg, type RemoteCall } from './remote.ts'
import { PortsExhausted, WorkerSlot } from './slot.ts'

export interface PoolMetrics {
  callWorkerFailed(calls: number): void
  callWorkerStats(worker: string, stats: WorkerStats | undefined): void
}

export interface PoolOptions {
  config: Config
  workers: number
  idleMs: number
  log: Logger
  local: CallPlacer
  metrics?: PoolMetrics
  /** Ports to the main thread's engine threads for each new worker (see voice/shared-engines.ts). */
  shareEngines?: () => { ports: SharedEnginePorts; transfer: MessagePort[]; release?: () => void }
}

/** Splits the RTP range into `n` slices of whole even/odd pairs, one per worker. */
export function portSlices(min: number, max: number, n: number): { min: number; max: number }[] {
  const first = min % 2 === 0 ? min : min + 1
  const per = Math.floor(Math.floor((max - first + 1) / 2) / n)
  if (per < 1) throw new RangeError(`RTP_PORT_MIN..RTP_PORT_MAX (${min}-${max}) is too small for ${n} call workers`)
  return Array.from({ length: n }, (_, i) => ({ min: first + 2 * per * i, max: first + 2 * per * (i + 1) - 1 }))
}

export class CallWorkerPool implements CallPlacer {
  readonly slots: WorkerSlot[]
  private nextCid = 1

  constructor(private readonly o: PoolOptions) {
    const script = workerScript('features/calls/workers/call-worker.ts', new URL('./call-worker.ts', import.meta.url))
    const slices = portSlices(o.config.RTP_PORT_MIN, o.config.RTP_PORT_MAX, o.workers)
    this.slots = slices.map(
      (rtp, i) =>
        new WorkerSlot(i, { config: o.config, rtp }, {
          log: o.log,
          script,
          idleMs: o.idleMs,
          shareEngines: o.shareEngines,
          failed: (index, calls, reason) => {
            o.log.error({ worker: index, calls, reason }, 'a call worker died: its calls were hung up; it is restarted')
            o.metrics?.callWorkerFailed(calls)
          },
          stats: (index, stats) => o.metrics?.callWorkerStats(String(index), stats),
        }),
    )
  }

  get activeWorkers(): number {
    return this.slots.filter((s) => s.running).length
  }

  async place(opts: PlaceOptions = {}): Promise<CallPlacement> {
    if (opts.inProcess || opts.link) return this.o.local.place(opts)
    const slot = this.slots.reduce((best, s) => (s.load < best.load ? s : best))
    const cid = this.nextCid++
    slot.placing++
    let port: number
    try {
      await slot.started()
      port = await slot.request<number>((rid) => ({ t: 'place', rid, cid, web: opts.web }))
    } catch (err) {
      if (err instanceof PortsExhausted) throw new PortPoolExhaustedError(err.message)
      throw err
    } finally {
      slot.placing--
    }
    const call: RemoteCall = { cid, started: false }
    slot.calls.set(cid, call)
    return {
      port,
      where: `worker-${slot.index}`,
      ...(opts.web && {
        answerWeb: async (offer: string, options: WebRtcOptions) => {
          const web = (call.web = { connected: false, onConnected: [], onEnded: [] })
          const answer = await slot.request<WebAnswerWire>((rid) => ({ t: 'answerWeb', rid, cid, offer, options }))
          return remoteWebLeg(slot, cid, web, { sdp: answer.sdp, media: fromMediaWire(answer.media) })
        },
      }),
      start: async (init: ConversationInit, events: ConversationEvents) => {
        call.events = events
        call.callId = init.callId
        await slot.request((rid) => ({ t: 'start', rid, cid, init: { ...init, media: toMediaWire(init.media) } }))
        call.started = true
        return new RemoteConversation(slot, cid)
      },
      release: () => {
        slot.post({ t: 'release', cid })
        slot.done(cid)
      },
    }
  }

  /** For tests and operators: the worker carrying a call, by the call's id. */
  slotOf(callId: string): WorkerSlot | undefined {
    return this.slots.find((s) => [...s.calls.values()].some((c) => c.callId === callId))
  }

  async stop(): Promise<void> {
    await Promise.all(this.slots.map((s) => s.stop()))
    for (const s of this.slots) this.o.metrics?.callWorkerStats(String(s.index), undefined)
  }
}
