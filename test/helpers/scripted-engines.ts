// In-process engines for session timelines (no sockets): they implement the real contracts on
// the real ProviderStream base, answer from a script, and can be told to fail.
import type { AudioFrame } from '../../src/realtime/voice/audio.ts'
import { ProviderError, ProviderStream } from '../../src/realtime/voice/base.ts'
import { completeByChat } from '../../src/realtime/voice/llm/complete.ts'
import type { ChatMessage, ChatRequest, CompleteOptions, Llm, LlmEvent } from '../../src/realtime/voice/llm/contract.ts'
import type { AsyncQueue } from '../../src/realtime/voice/queue.ts'
import type { Stt, SttEvent } from '../../src/realtime/voice/stt/contract.ts'
import type { Tts, TtsEvent } from '../../src/realtime/voice/tts/contract.ts'

const NO_RETRY = { maxRetries: 0, timeoutMs: 0, retryIntervalMs: 0 }

/** One transcript per utterance, in order; `null` fails that utterance. */
export class ScriptedStt implements Stt {
  readonly provider = 'scripted-stt'
  readonly capabilities = { streaming: false, interimResults: false, offline: true }
  constructor(readonly script: (string | null)[]) {}
  stream() {
    const next = this.script.shift()
    return new (class extends ProviderStream<AudioFrame, SttEvent> {
      protected async attempt(input: AsyncQueue<AudioFrame>, emit: (e: SttEvent) => void) {
        let ms = 0
        for await (const f of input) ms += (f.samples.length * 1000) / f.sampleRate
        if (next === null) throw new ProviderError('scripted-stt', 'status', 'scripted failure', false)
        if (next) emit({ type: 'final', text: next, confidence: 1, startMs: 0, endMs: ms, endOfTurn: true })
        emit({ type: 'usage', audioMs: ms })
      }
    })('scripted-stt', NO_RETRY)
  }
}

/** Each turn reports 100 input tokens (`cachedInputTokens` of them from the prompt cache) and 10 output tokens. */
export type ScriptedTurn = { text?: string; toolCalls?: { name: string; arguments: string }[]; cachedInputTokens?: number } | 'fail'

export class ScriptedLlm implements Llm {
  readonly provider = 'scripted-llm'
  readonly model = 'scripted'
  readonly capabilities = { streaming: true as const, toolCalls: true, usage: true }
  readonly requests: ChatRequest[] = []
  constructor(readonly script: ScriptedTurn[]) {}
  chat(request: ChatRequest) {
    this.requests.push(structuredClone(request))
    const turn = this.script.shift() ?? 'fail'
    return new (class extends ProviderStream<never, LlmEvent> {
      protected async attempt(_i: AsyncQueue<never>, emit: (e: LlmEvent) => void) {
        if (turn === 'fail') throw new ProviderError('scripted-llm', 'status', 'scripted failure', false, 503)
        for (const word of turn.text?.match(/\S+\s*/g) ?? []) emit({ type: 'text', delta: word })
        ;(turn.toolCalls ?? []).forEach((c, i) => emit({ type: 'tool_call', call: { id: `call_${i}`, ...c } }))
        emit({ type: 'usage', inputTokens: 100, outputTokens: 10, ...(turn.cachedInputTokens ? { cachedInputTokens: turn.cachedInputTokens } : {}) })
        emit({ type: 'done', finishReason: turn.toolCalls?.length ? 'tool_calls' : 'stop' })
      }
    })('scripted-llm', NO_RETRY)
  }
  complete(messages: ChatMessage[], options?: CompleteOptions) {
    return completeByChat(this, messages, options)
  }
}

/** 50 ms of a 300 Hz tone per character; `failing` makes every synthesis fail. */
export class ToneTts implements Tts {
  readonly provider = 'tone-tts'
  readonly capabilities = { streaming: true, offline: true, nativeSampleRate: 8000 }
  failing = false
  readonly spoken: string[] = []
  constructor(readonly sampleRate: number) {}
  synthesize(text: string) {
    const rate = this.sampleRate
    const fail = this.failing
    this.spoken.push(text)
    return new (class extends ProviderStream<never, TtsEvent> {
      protected async attempt(_i: AsyncQueue<never>, emit: (e: TtsEvent) => void) {
        if (fail) throw new ProviderError('tone-tts', 'status', 'scripted failure', false, 500)
        const n = Math.round((text.length * 50 * rate) / 1000)
        const samples = new Int16Array(n)
        for (let i = 0; i < n; i++) samples[i] = Math.round(3000 * Math.sin((2 * Math.PI * 300 * i) / rate))
        for (let i = 0; i < n; i += rate / 10) emit({ type: 'audio', frame: { samples: samples.slice(i, i + rate / 10), sampleRate: rate } })
        emit({ type: 'done', characters: text.length, audioMs: (n * 1000) / rate })
      }
    })('tone-tts', NO_RETRY)
  }
}
