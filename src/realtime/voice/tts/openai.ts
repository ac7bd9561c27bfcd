import { type ConnOptions, DEFAULT_CONN } from '../base.ts'
import { cleanTtsText, type Tts } from './contract.ts'
import { HttpPcmTtsStream } from './http-pcm.ts'

export interface OpenAiTtsOptions {
  /** Up to and including /v1. */
  baseUrl: string
  apiKey: string
  model: string
  voice: string
  /** Speaking rate, 1 is normal (0.25-4). */
  speed?: number
  sampleRate: number
  conn?: ConnOptions
}

/** OpenAI audio/speech; `pcm` is raw 24 kHz 16-bit mono, resampled to the call's rate. */
export class OpenAiTts implements Tts {
  readonly provider = 'openai-tts'
  readonly capabilities = { streaming: true, offline: false, nativeSampleRate: 24000 }

  constructor(private readonly opts: OpenAiTtsOptions) {}

  get sampleRate(): number {
    return this.opts.sampleRate
  }

  synthesize(text: string, conn = this.opts.conn ?? DEFAULT_CONN): HttpPcmTtsStream {
    const clean = cleanTtsText(text)
    return new HttpPcmTtsStream(
      this.provider,
      {
        url: `${this.opts.baseUrl.replace(/\/+$/, '')}/audio/speech`,
        headers: { authorization: `Bearer ${this.opts.apiKey}` },
        body: { model: this.opts.model, input: clean, voice: this.opts.voice, response_format: 'pcm', ...(this.opts.speed && this.opts.speed !== 1 ? { speed: this.opts.speed } : {}) },
        sampleRate: 24000,
      },
      clean,
      this.opts.sampleRate,
      conn,
    )
  }
}
