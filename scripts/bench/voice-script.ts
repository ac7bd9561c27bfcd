// What the benchmark's callers say and what the fake LLM answers, shared by both processes.
import { concatFrames, type AudioFrame } from '../../src/realtime/voice/audio.ts'
import { fliteSpeech, silence } from '../../test/helpers/speech.ts'

export const BENCH_REPLY = 'Let me look that up.'
export const CALLER_TURNS = 3
/** Room for the agent's answer between two caller turns. */
export const PAUSE_MS = 3500

/** A caller's audio at 16 kHz: `leadMs` of silence, then three turns with pauses. */
export function callerScript(): (leadMs: number) => AudioFrame {
  const utterance = fliteSpeech('I would like to check the status of my order please.')
  return (leadMs) => {
    const parts = [silence(leadMs, 16000)]
    for (let i = 0; i < CALLER_TURNS; i++) parts.push(utterance, silence(PAUSE_MS, 16000))
    return concatFrames(parts)
  }
}
