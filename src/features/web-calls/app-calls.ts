// What the web-call and media-stream features need of the call runtime, which starts after HTTP
// listens: absent until then (the routes answer 503 not_ready).
import type { AppCallRequest } from '../calls/index.ts'

export interface LiveView {
  status: 'ringing' | 'in_progress' | 'ended'
  transcript: { role: 'agent' | 'user'; text: string; timestamp: number }[]
  turns: { text: string; voiceToVoiceMs: number | null; responseMs: number | null }[]
}

export interface AppCallHost {
  startAppCall(req: AppCallRequest): Promise<{ callId: string; finished: Promise<void> }>
  /** The live call on this node, for the live panel; undefined once ended or elsewhere. */
  liveView(callId: string): LiveView | undefined
}
