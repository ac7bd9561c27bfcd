// A TTS engine for decorator tests: each synthesis plays a script of frames, gates the test
// opens, and failures, on the real ProviderStream base; the streams it made stay inspectable.
import { ProviderError, ProviderStream } from '../../../../src/realtime/voice/base.ts'
import type { AsyncQueue } from '../../../../src/realtime/voice/queue.ts'
import type { Tts, TtsEvent } from '../../../../src/realtime/voice/tts/contract.ts'

export type Step = Int16Array | { gate: Promise<void>; reached?: boolean } | { fail: 'fatal' | 'retryable' } | 'done'

export class ScriptTts implements Tts {
  readonly provider = 'script-tts'
  readonly capabilities = { streaming: true, offline: true, nativeSampleRate: 8000 }
  readonly texts: string[] = []
  readonly streams: ProviderStream<never, TtsEvent>[] = []

  constructor(
    readonly sampleRate: number,
    /** The steps of each synthesis, in call order; the last one repeats. */
    private readonly scripts: Step[][],
  ) {}

  synthesize(text: string) {
    const steps = this.scripts[Math.min(this.texts.length, this.scripts.length - 1)]!
    this.texts.push(text)
    const rate = this.sampleRate
    let attempt = 0
    const stream = new (class extends ProviderStream<never, TtsEvent> {
      protected async attempt(_i: AsyncQueue<never>, emit: (e: TtsEvent) => void, signal: AbortSignal) {
        const first = attempt++ === 0
        let produced = 0
        for (const step of steps) {
          if (signal.aborted) return
          if (step === 'done') emit({ type: 'done', characters: text.length, audioMs: (produced * 1000) / rate })
          else if (step instanceof Int16Array) {
            produced += step.length
            emit({ type: 'audio', frame: { samples: step, sampleRate: rate } })
          } else if ('gate' in step) {
            step.reached = true
            await Promise.race([step.gate, new Promise((r) => signal.addEventListener('abort', r))])
          }
          else if (step.fail === 'fatal' || first) throw new ProviderError('script-tts', 'status', 'scripted failure', step.fail === 'retryable', 503)
        }
      }
    })('script-tts', { maxRetries: 1, timeoutMs: 0, retryIntervalMs: 0 })
    this.streams.push(stream)
    return stream
  }
}

/** A gate a script waits at (`reached`) until the test opens it. */
export function gate(): { gate: Promise<void>; reached?: boolean; open(): void } {
  let open!: () => void
  const g = new Promise<void>((resolve) => (open = resolve))
  return { gate: g, open }
}

/** `ms` of a tone at `amplitude` (voiced when loud enough), 8 kHz unless told. */
export function tone(ms: number, amplitude: number, rate = 8000, hz = 300): Int16Array {
  const n = Math.round((ms * rate) / 1000)
  const out = new Int16Array(n)
  // a quarter-period phase offset: the first sample is already at full amplitude
  for (let i = 0; i < n; i++) out[i] = Math.round(amplitude * Math.cos((2 * Math.PI * hz * i) / rate))
  return out
}

/** `ms` of low noise whose peaks stay under `peak` (TTS near silence). */
export function hiss(ms: number, peak: number, rate = 8000, seed = 1): Int16Array {
  const n = Math.round((ms * rate) / 1000)
  const out = new Int16Array(n)
  let s = seed
  for (let i = 0; i < n; i++) {
    s = (s * 1103515245 + 12345) & 0x7fffffff
    out[i] = ((s % (2 * peak - 1)) - (peak - 1)) | 0
  }
  return out
}

export function concat(...parts: Int16Array[]): Int16Array {
  const out = new Int16Array(parts.reduce((n, p) => n + p.length, 0))
  let o = 0
  for (const p of parts) {
    out.set(p, o)
    o += p.length
  }
  return out
}

/** `samples` cut into pieces of the given sizes, cycling. */
export function pieces(samples: Int16Array, sizes: number[]): Int16Array[] {
  const out: Int16Array[] = []
  for (let i = 0, k = 0; i < samples.length; k++) {
    const n = sizes[k % sizes.length]!
    out.push(samples.subarray(i, i + n))
    i += n
  }
  return out
}
