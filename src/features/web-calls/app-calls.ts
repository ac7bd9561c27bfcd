// What the web-call and media-stream features need of the call runtime, which starts after HTTP
// listens: absent until then (the routes answer 503 not_ready).
import { CallRefused, type AppCallRequest, type CallKind, type CallPlacement, type Ticket } from '../calls/index.ts'

export interface LiveView {
  status: 'ringing' | 'in_progress' | 'ended'
  transcript: { role: 'agent' | 'user'; text: string; timestamp: number }[]
  turns: { text: string; voiceToVoiceMs: number | null; responseMs: number | null }[]
}

export interface AppCallHost {
  /** A place for one more call of the workspace (its maxConcurrentCalls, the node's headroom), or CallRefused. */
  admit(workspaceId: string, kind: CallKind): Promise<Ticket>
  /** Calls of the workspace up on this node. */
  callsUp(workspaceId: string): number
  startAppCall(req: AppCallRequest): Promise<{ callId: string; finished: Promise<void> }>
  /** Where a web call will run (a call worker, or this thread): it answers the offer there. */
  placeWebCall(): Promise<CallPlacement>
  /** The live call on this node, for the live panel; undefined once ended or elsewhere. */
  liveView(callId: string): LiveView | undefined
}

/**
 * WEB_CALLS_MAX, shared by web calls and media streams: a place is taken before the call starts
 * and given back once. No workspace holds more than its share (WEB_CALLS_SHARE percent, at least
 * one place), so calls of one workspace that never connect cannot refuse another's.
 */
export class AppCallSlots {
  private taken = 0
  private readonly byWorkspace = new Map<string, number>()
  /** Places one workspace may hold. */
  readonly share: number

  constructor(
    readonly max: number,
    sharePercent = 100,
    private readonly onRefused?: (reason: 'web_slots' | 'web_share', kind: 'web' | 'stream') => void,
  ) {
    this.share = Math.max(1, Math.floor((max * Math.min(100, Math.max(0, sharePercent))) / 100))
  }

  get size(): number {
    return this.taken
  }

  held(workspaceId: string): number {
    return this.byWorkspace.get(workspaceId) ?? 0
  }

  /** A place, or CallRefused (web_slots: the node is full; web_share: the workspace holds its share); the release gives it back (once). */
  take(workspaceId: string, kind: 'web' | 'stream'): () => void {
    if (this.taken >= this.max) {
      this.onRefused?.('web_slots', kind)
      throw new CallRefused('web_slots', `this appliance carries at most ${this.max} web and stream calls at once (WEB_CALLS_MAX)`)
    }
    const held = this.held(workspaceId)
    if (held >= this.share) {
      this.onRefused?.('web_share', kind)
      throw new CallRefused('web_share', `the workspace holds ${held} web and stream calls, its share of this appliance's ${this.max} (WEB_CALLS_SHARE); retry when one ends`)
    }
    this.taken++
    this.byWorkspace.set(workspaceId, held + 1)
    let given = false
    return () => {
      if (given) return
      given = true
      this.taken--
      const n = this.held(workspaceId) - 1
      if (n > 0) this.byWorkspace.set(workspaceId, n)
      else this.byWorkspace.delete(workspaceId)
    }
  }
}
