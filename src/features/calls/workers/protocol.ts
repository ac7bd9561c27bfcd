// The control messages between the main thread and a call worker: a few per call (place, start,
// hold, hang-up, transfer leg, a supervisor's action, close; answered, turns, hang-up, transfer and opt-out requests
// back) and one statistics message a second. Never audio: a call's frames stay in its worker.
import type { NegotiatedMediaWire } from '../../../realtime/telephony/sdp/index.ts'
import type { SharedEnginePorts } from '../../../realtime/voice/index.ts'
import type { TrickleCandidate, WebRtcOptions } from '../../../realtime/webrtc/index.ts'
import type { ConversationInit, MediaAction } from '../conversation/index.ts'

/** A call's init as it crosses to a worker: its media with the SRTP keys as plain fields (toMediaWire). */
export type ConversationInitWire = Omit<ConversationInit, 'media'> & { media: NegotiatedMediaWire }

/** Main -> worker. `rid` expects a `reply` with the same id. */
export type ToWorker =
  | { t: 'engines'; ports: SharedEnginePorts }
  /** `web`: a browser call, with no RTP ports; `answerWeb` answers its offer in the worker. */
  | { t: 'place'; rid: number; cid: number; web?: boolean }
  | { t: 'answerWeb'; rid: number; cid: number; offer: string; options: WebRtcOptions }
  | { t: 'webCandidate'; rid: number; cid: number; candidate: TrickleCandidate | null }
  | { t: 'webClose'; cid: number; reason: string }
  | { t: 'start'; rid: number; cid: number; init: ConversationInitWire }
  | { t: 'release'; cid: number }
  | { t: 'update'; cid: number; media: NegotiatedMediaWire }
  | { t: 'dtmf'; cid: number; digit: string }
  | { t: 'callerHungUp'; cid: number }
  | { t: 'openLeg'; rid: number; cid: number }
  | { t: 'connectLeg'; rid: number; cid: number; media: NegotiatedMediaWire }
  | { t: 'closeLeg'; rid: number; cid: number }
  /** A supervisor's action; the reply's value is its ActionResult. */
  | { t: 'act'; rid: number; cid: number; action: MediaAction }
  | { t: 'close'; rid: number; cid: number }
  /** The thread is about to be terminated: end what lives outside it (the Silero host process). */
  | { t: 'shutdown' }
  | Reply

/** Events a call's conversation reports; `transfer`, `optOut` and `searchKnowledge` are requests the main thread answers. */
export type CallEvent =
  | { e: 'answered'; info: import('../conversation/index.ts').AnsweredInfo }
  | { e: 'hangup'; reason: import('../../../realtime/voice/session/index.ts').EndReason }
  | { e: 'gateHangup' }
  | { e: 'providerFailed'; provider: string; error: string }
  | { e: 'turn'; text: string; latency: import('../../../realtime/voice/turn/metrics.ts').TurnLatency; turn: number }
  | { e: 'turnMeasured'; turn: number; latency: import('../../../realtime/voice/turn/metrics.ts').TurnLatency }
  | { e: 'transcribed'; item: import('../../../realtime/voice/session/index.ts').TranscriptItem }

/** Worker -> main. */
export type FromWorker =
  | { t: 'listening' }
  | { t: 'ready' }
  | { t: 'event'; cid: number; event: CallEvent }
  | { t: 'transfer'; rid: number; cid: number; target: string }
  | { t: 'optOut'; rid: number; cid: number }
  | { t: 'searchKnowledge'; rid: number; cid: number; query: string; opts: import('../conversation/tools.ts').KnowledgeQueryOptions }
  | { t: 'stats'; stats: WorkerStats }
  | { t: 'shutdown' }
  /** A web call's peer connected, or ended (the browser left, ICE failed). */
  | { t: 'web'; cid: number; state: 'connected' }
  | { t: 'web'; cid: number; state: 'ended'; reason: string }
  | Reply

export type Reply = { t: 'reply'; rid: number; ok: true; value?: unknown } | { t: 'reply'; rid: number; ok: false; error: string; code?: 'ports_exhausted' | 'offer_refused' }

/** What `answerWeb` replies: the answer and the media it agreed. */
export interface WebAnswerWire {
  sdp: string
  media: NegotiatedMediaWire
}

/** Sent once a second: what the worker's event loop and media clock went through. */
export interface WorkerStats {
  calls: number
  /** Largest lateness of the worker's 20 ms probe timer in the last second, ms. */
  loopLagMaxMs: number
  /** The media clock's timer lateness p99 over the worker's life, ms. */
  clockLatenessP99Ms: number
  /** The worker's own offline engines in memory now (its Silero host). */
  engines: Record<string, boolean>
}

/** Requests in flight on one side of a worker's port, by id. */
export class PendingReplies {
  private next = 1
  private readonly waiting = new Map<number, { resolve(v: unknown): void; reject(e: Error): void }>()

  /** A new request id and the promise its reply settles. */
  open<T>(): { rid: number; reply: Promise<T> } {
    const rid = this.next++
    const reply = new Promise<T>((resolve, reject) => this.waiting.set(rid, { resolve: resolve as (v: unknown) => void, reject }))
    return { rid, reply }
  }

  settle(r: Reply, errorOf: (r: Extract<Reply, { ok: false }>) => Error = (x) => new Error(x.error)): void {
    const w = this.waiting.get(r.rid)
    if (!w) return
    this.waiting.delete(r.rid)
    if (r.ok) w.resolve(r.value)
    else w.reject(errorOf(r))
  }

  /** The other side is gone: every request fails with `err`. */
  failAll(err: Error): void {
    for (const w of this.waiting.values()) w.reject(err)
    this.waiting.clear()
  }
}
