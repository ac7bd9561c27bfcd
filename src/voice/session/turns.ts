import type { EndOfTurn } from '../turn/endpointing.ts'
import type { TurnLatency } from '../turn/metrics.ts'
import type { SpeechHandle } from '../turn/speech-handle.ts'

const MAX_TURNS = 2000

/**
 * Per-turn latencies, one path for every brain: a caller turn opens a record, the first speech
 * begun after it is its answer (voice-to-voice is measured to that speech's first frame), and
 * brains add the stages only they see (LLM first token, TTS first byte).
 */
export class TurnRecorder {
  readonly turns: TurnLatency[] = []
  private current: { latency: TurnLatency; speechEndMs: number; answered: boolean; key?: boolean } | undefined

  /** A caller turn was committed. */
  open(turn: EndOfTurn, sttFinalAt: number | undefined): TurnLatency {
    const latency: TurnLatency = {
      endpointingMs: turn.decidedAtMs - turn.speechEndMs,
      sttFinalMs: sttFinalAt !== undefined ? Math.max(0, sttFinalAt - turn.speechEndMs) : undefined,
    }
    if (this.turns.length >= MAX_TURNS) this.turns.shift()
    this.turns.push(latency)
    this.current = { latency, speechEndMs: turn.speechEndMs, answered: false }
    return latency
  }

  /**
   * A key was pressed for a brain that acts on each key: keys until the next answer are one
   * turn, ending at the last key.
   */
  key(atMs: number): TurnLatency {
    const cur = this.current
    if (cur?.key && !cur.answered) {
      cur.speechEndMs = atMs
      return cur.latency
    }
    const latency = this.open({ text: '', speechEndMs: atMs, decidedAtMs: atMs, hadFinal: true }, undefined)
    this.current!.key = true
    return latency
  }

  latest(): TurnLatency | undefined {
    return this.current?.latency
  }

  /** A speech began; the first one after a caller turn answers it. */
  speechBegan(speech: SpeechHandle, firstFrameAt: (s: SpeechHandle) => number | undefined): void {
    const cur = this.current
    if (!cur || cur.answered) return
    cur.answered = true
    void speech.done.then(() => {
      const first = firstFrameAt(speech)
      if (first !== undefined) cur.latency.voiceToVoiceMs = first - cur.speechEndMs
    })
  }

  /** Stages a brain measured for the turn being answered; the first value of each wins. */
  note(stages: Pick<TurnLatency, 'llmTtftMs' | 'ttsTtfbMs'>): void {
    const l = this.current?.latency
    if (!l) return
    if (stages.llmTtftMs !== undefined) l.llmTtftMs ??= stages.llmTtftMs
    if (stages.ttsTtfbMs !== undefined) l.ttsTtfbMs ??= stages.ttsTtfbMs
  }
}
