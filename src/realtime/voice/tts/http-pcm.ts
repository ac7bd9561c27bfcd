import { pcm16FromBytes } from '../audio.ts'
import { type ConnOptions, ProviderError, ProviderStream, statusError } from '../base.ts'
import type { AsyncQueue } from '../queue.ts'
import { Resampler } from '../resample.ts'
import type { TtsEvent } from './contract.ts'

export interface PcmRequest {
  url: string
  headers: Record<string, string>
  body: unknown
  /** Rate of the raw 16-bit little-endian PCM the provider returns. */
  sampleRate: number
}

/** A TTS answer that arrives as chunked raw PCM over HTTP (ElevenLabs pcm_*, OpenAI `pcm`). */
export class HttpPcmTtsStream extends ProviderStream<never, TtsEvent> {
  constructor(
    provider: string,
    private readonly request: PcmRequest,
    private readonly text: string,
    private readonly outputRate: number,
    conn: ConnOptions,
  ) {
    super(provider, conn)
  }

  protected async attempt(_input: AsyncQueue<never>, emit: (e: TtsEvent) => void, signal: AbortSignal): Promise<void> {
    const res = await fetch(this.request.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...this.request.headers },
      body: JSON.stringify(this.request.body),
      signal,
    })
    if (!res.ok) throw await statusError(this.provider, res)
    if (!res.body) throw new ProviderError(this.provider, 'protocol', 'response has no body', true)
    const type = res.headers.get('content-type') ?? ''
    if (type.includes('json')) throw new ProviderError(this.provider, 'protocol', `expected audio, got ${type}`, false)
    const resampler = new Resampler(this.request.sampleRate, this.outputRate)
    let carry: Uint8Array = new Uint8Array(0)
    let produced = 0
    const reader = res.body.getReader()
    const onAbort = () => void reader.cancel().catch(() => {})
    signal.addEventListener('abort', onAbort)
    try {
      for (;;) {
        const { value, done } = await reader.read()
        if (done) break
        const { samples, rest } = pcm16FromBytes(value, carry)
        carry = rest
        const out = resampler.push(samples)
        if (out.length === 0) continue
        produced += out.length
        emit({ type: 'audio', frame: { samples: out, sampleRate: this.outputRate } })
      }
    } finally {
      signal.removeEventListener('abort', onAbort)
    }
    if (signal.aborted) return
    if (produced === 0) throw new ProviderError(this.provider, 'protocol', 'no audio in the response', true)
    emit({ type: 'done', characters: this.text.length, audioMs: (produced * 1000) / this.outputRate })
  }
}
