// What the web-call and media-stream features need of the call runtime, which starts after HTTP
// listens: absent until then (the routes answer 503 not_ready).
import type { AppCallRequest, CallPlacement } from '../calls/index.ts'

export interface LiveView {
  status: 'ringing' | 'in_progress' | 'ended'
  transcript: { role: 'agent' | 'user'; text: string; timestamp: number }[]
  turns: { text: string; voiceToVoiceMs: number | null; responseMs: number | null }[]
}

export interface AppCallHost {
  startAppCall(req: AppCallRequest): Promise<{ callId: string; finished: Promise<void> }>
  /** Where a web call will run (a call worker, or this thread): it answers the offer there. */
  placeWebCall(): Promise<CallPlacement>
  /** The live call on this node, for the live panel; undefined once ended or elsewhere. */
  liveView(callId: string): LiveView | undefined
}

/** WEB_CALLS_MAX, shared by web calls and media streams: a place is taken before the call starts and given back once. */
export class AppCallSlots {
  private taken = 0

  constructor(readonly max: number) {}

  get size(): number {
    return this.taken
  }

  /** A place, or undefined when the node is full; the returned release gives it back (once). */
  take(): (() => void) | undefined {
    if (this.taken >= this.max) return undefined
    this.taken++
    let given = false
    return () => {
      if (!given) this.taken--
      given = true
    }
  }
}
