import type { EndOfTurn } from '../turn/endpointing.ts'
import type { TurnLatency } from '../turn/metrics.ts'
import type { SpeechHandle } from '../turn/speech-handle.ts'

const MAX_TURNS = 2000

/**
 * Per-turn latencies, one path for every brain: a caller turn opens a record, the first speech
 * begun after it is its answer (voice-to-voice is measured to that speech's first frame), and
 * brains add the stages only they see (LLM first token, TTS first byte). Turns are numbered
 * from 1 in the order they opened; `measured` hears a turn's figures (a copy) each time its
 * answer's first frame or first voiced frame fills them in.
 */
export class TurnRecorder {
  readonly turns: TurnLatency[] = []
  private opened = 0
  private current:
    | { latency: TurnLatency; turn: number; speechEndMs: number; decidedAtMs: number; answer?: SpeechHandle; firstFrameAt?: number; key?: boolean }
    | undefined

  constructor(private readonly measured?: (turn: number, latency: TurnLatency) => void) {}

  /** A caller turn was committed. */
  open(turn: EndOfTurn, sttFinalAt: number | undefined): TurnLatency {
    const endpointingMs = turn.decidedAtMs - turn.speechEndMs
    const latency: TurnLatency = {
      vadHangoverMs: turn.silenceOverMs !== undefined ? Math.min(endpointingMs, turn.silenceOverMs - turn.speechEndMs) : undefined,
      endpointingMs,
      sttFinalMs: sttFinalAt !== undefined ? Math.max(0, sttFinalAt - turn.speechEndMs) : undefined,
    }
    if (this.turns.length >= MAX_TURNS) this.turns.shift()
    this.turns.push(latency)
    this.current = { latency, turn: ++this.opened, speechEndMs: turn.speechEndMs, decidedAtMs: turn.decidedAtMs }
    return latency
  }

  /**
   * A key was pressed for a brain that acts on each key: keys until the next answer are one
   * turn, ending at the last key.
   */
  key(atMs: number): TurnLatency {
    const cur = this.current
    if (cur?.key && !cur.answer) {
      cur.speechEndMs = cur.decidedAtMs = atMs
      return cur.latency
    }
    const latency = this.open({ text: '', speechEndMs: atMs, decidedAtMs: atMs, hadFinal: true }, undefined)
    this.current!.key = true
    return latency
  }

  latest(): TurnLatency | undefined {
    return this.current?.latency
  }

  /** The number of the latest turn (1 for the call's first), 0 before any. */
  latestTurn(): number {
    return this.current?.turn ?? 0
  }

  /** A speech began; the first one after a caller turn answers it. */
  speechBegan(speech: SpeechHandle): void {
    const cur = this.current
    if (!cur || cur.answer) return
    cur.answer = speech
  }

  /** A speech's first frame went out. */
  firstFrame(speech: SpeechHandle, atMs: number): void {
    const cur = this.current
    if (cur?.answer !== speech || cur.firstFrameAt !== undefined) return
    cur.firstFrameAt = atMs
    cur.latency.responseMs = atMs - cur.decidedAtMs
    this.measured?.(cur.turn, { ...cur.latency })
  }

  /** A speech's first voiced frame went out: the caller hears the answer now. */
  firstVoiced(speech: SpeechHandle, atMs: number): void {
    const cur = this.current
    const l = cur?.latency
    if (!cur || !l || cur.answer !== speech || cur.firstFrameAt === undefined || l.voiceToVoiceMs !== undefined) return
    if (cur.key) l.endpointingMs = cur.decidedAtMs - cur.speechEndMs
    l.responseMs = cur.firstFrameAt - cur.decidedAtMs
    l.leadingSilenceMs = atMs - cur.firstFrameAt
    // the parts add up to the whole by construction
    l.voiceToVoiceMs = l.endpointingMs! + l.responseMs + l.leadingSilenceMs
    this.measured?.(cur.turn, { ...l })
  }

  /** Stages a brain measured for the turn being answered; the first value of each wins. */
  note(stages: Pick<TurnLatency, 'llmTtftMs' | 'ttsTtfbMs'>): void {
    const l = this.current?.latency
    if (!l) return
    if (stages.llmTtftMs !== undefined) l.llmTtftMs ??= stages.llmTtftMs
    if (stages.ttsTtfbMs !== undefined) l.ttsTtfbMs ??= stages.ttsTtfbMs
  }
}
