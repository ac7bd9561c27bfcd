// The main thread's handle on a call running in a call worker: each method is one control
// message; replies and the worker's events arrive through the pool.
import { toMediaWire, type NegotiatedMedia } from '../../../realtime/telephony/sdp/index.ts'
import type { ActionResult, Conversation, ConversationEvents, ConversationResult, MediaAction, WebLeg } from '../conversation/index.ts'
import type { ToWorker } from './protocol.ts'

/** What a remote call needs of its worker's slot in the pool. */
export interface WorkerLink {
  post(m: ToWorker): void
  request<T>(make: (rid: number) => ToWorker): Promise<T>
  /** The call is over in the worker: forget it. */
  done(cid: number): void
}

/** One call of a worker, as the pool routes its events. */
export interface RemoteCall {
  cid: number
  /** The call row's id, once started. */
  callId?: string
  events?: ConversationEvents
  /** Set once the worker started the conversation: a worker failure is then reported as an event. */
  started: boolean
  /** A web call's peer, answered in the worker: what it reported, and who listens. */
  web?: RemoteWebState
}

export interface RemoteWebState {
  connected: boolean
  ended?: string
  onConnected: (() => void)[]
  onEnded: ((reason: string) => void)[]
}

/** A web call's peer in a worker, as a WebLeg on this thread. */
export function remoteWebLeg(link: WorkerLink, cid: number, state: RemoteWebState, answer: { sdp: string; media: NegotiatedMedia }): WebLeg {
  return {
    sdp: answer.sdp,
    media: answer.media,
    onConnected(fn) {
      if (state.connected) fn()
      else state.onConnected.push(fn)
    },
    onEnded(fn) {
      if (state.ended !== undefined) fn(state.ended)
      else state.onEnded.push(fn)
    },
    addCandidate: (candidate) => link.request((rid) => ({ t: 'webCandidate', rid, cid, candidate })),
    close: (reason) => link.post({ t: 'webClose', cid, reason }),
  }
}

/** The worker said the peer connected or ended (or the worker is gone: ended). */
export function webReported(state: RemoteWebState, m: { state: 'connected' } | { state: 'ended'; reason: string }): void {
  if (m.state === 'connected') {
    if (state.connected || state.ended !== undefined) return
    state.connected = true
    for (const fn of state.onConnected.splice(0)) fn()
    return
  }
  if (state.ended !== undefined) return
  state.ended = m.reason
  state.onConnected.length = 0
  for (const fn of state.onEnded.splice(0)) fn(m.reason)
}

export class RemoteConversation implements Conversation {
  constructor(
    private readonly link: WorkerLink,
    private readonly cid: number,
  ) {}

  update(media: NegotiatedMedia): void {
    this.link.post({ t: 'update', cid: this.cid, media: toMediaWire(media) })
  }

  pushDtmf(digit: string): void {
    this.link.post({ t: 'dtmf', cid: this.cid, digit })
  }

  callerHungUp(): void {
    this.link.post({ t: 'callerHungUp', cid: this.cid })
  }

  openLeg(): Promise<number> {
    return this.link.request((rid) => ({ t: 'openLeg', rid, cid: this.cid }))
  }

  connectLeg(media: NegotiatedMedia): Promise<void> {
    return this.link.request((rid) => ({ t: 'connectLeg', rid, cid: this.cid, media: toMediaWire(media) }))
  }

  closeLeg(): Promise<void> {
    return this.link.request((rid) => ({ t: 'closeLeg', rid, cid: this.cid }))
  }

  act(action: MediaAction): Promise<ActionResult> {
    return this.link.request((rid) => ({ t: 'act', rid, cid: this.cid, action }))
  }

  async close(): Promise<ConversationResult> {
    try {
      return await this.link.request<ConversationResult>((rid) => ({ t: 'close', rid, cid: this.cid }))
    } finally {
      this.link.done(this.cid)
    }
  }
}
