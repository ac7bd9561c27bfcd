import type { AudioFrame } from '../audio.ts'
import type { Tts } from '../tts/contract.ts'
import { splitSentences } from '../turn/sentences.ts'
import type { SpeechHandle } from '../turn/speech-handle.ts'
import type { SessionUsage } from './types.ts'

export interface SayResult {
  ok: boolean
  /** First sentence sent to TTS -> its first audio. */
  ttsTtfbMs?: number
  /** The provider's error when TTS failed for good. */
  error?: string
}

/** Synthesizes fixed text sentence by sentence into `speech`; stops when the speech is interrupted. */
export async function sayText(
  text: string,
  speech: SpeechHandle,
  io: { tts: Tts; play(frame: AudioFrame): void; usage: SessionUsage; now(): number },
): Promise<SayResult> {
  const result: SayResult = { ok: true }
  for (const sentence of splitSentences(text)) {
    if (speech.state !== 'speaking') break
    speech.addSegment(sentence, 0, false)
    const sentAt = io.now()
    for await (const ev of io.tts.synthesize(sentence)) {
      if (ev.type === 'audio') {
        result.ttsTtfbMs ??= io.now() - sentAt
        speech.addAudio((ev.frame.samples.length * 1000) / ev.frame.sampleRate)
        io.play(ev.frame)
      } else if (ev.type === 'done') {
        speech.completeSegment()
        io.usage.tts.push({ provider: io.tts.provider, characters: ev.characters, audioMs: ev.audioMs })
      } else if (ev.type === 'error' && !ev.willRetry) {
        result.ok = false
        result.error = ev.error.message
      }
    }
    if (!result.ok) break
  }
  return result
}
