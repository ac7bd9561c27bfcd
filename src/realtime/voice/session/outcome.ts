import { SpeechHandle } from '../turn/speech-handle.ts'
import type { AgentProfile, SessionReport } from './types.ts'

/** What became of the welcome: heard to its end, cut by the caller speaking (barge-in), or not heard whole for another reason. */
export function welcomeOutcome(agent: AgentProfile, first: SpeechHandle | undefined, bargedIn: boolean): SessionReport['welcome'] {
  if (agent.firstSpeaker !== 'agent' || !agent.welcomeMessage.trim()) return undefined
  if (bargedIn) return 'barged_in'
  return first?.state === 'completed' ? 'spoken' : first && first.played > 0 ? 'cut' : 'not_spoken'
}

/** A speech that never starts: what a brain gets when it speaks while the call is closing. */
export function silenced(): SpeechHandle {
  const speech = new SpeechHandle()
  speech.interrupt()
  return speech
}
