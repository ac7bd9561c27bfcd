import { type ConnOptions, DEFAULT_CONN } from '../base.ts'
import { cleanTtsText, type Tts } from './contract.ts'
import { HttpPcmTtsStream } from './http-pcm.ts'

export interface ElevenLabsOptions {
  baseUrl: string
  apiKey: string
  voiceId: string
  modelId: string
  /** The call's rate; audio is requested at 16 kHz and resampled. */
  sampleRate: number
  conn?: ConnOptions
}

/** ElevenLabs streaming text-to-speech over HTTP, raw PCM output. */
export class ElevenLabsTts implements Tts {
  readonly provider = 'elevenlabs-tts'
  readonly capabilities = { streaming: true, offline: false, nativeSampleRate: 16000 }

  constructor(private readonly opts: ElevenLabsOptions) {}

  get sampleRate(): number {
    return this.opts.sampleRate
  }

  synthesize(text: string, conn = this.opts.conn ?? DEFAULT_CONN): HttpPcmTtsStream {
    const clean = cleanTtsText(text)
    const base = this.opts.baseUrl.replace(/\/+$/, '')
    const url = `${base}/v1/text-to-speech/${encodeURIComponent(this.opts.voiceId)}/stream?output_format=pcm_16000`
    return new HttpPcmTtsStream(
      this.provider,
      { url, headers: { 'xi-api-key': this.opts.apiKey, accept: 'audio/pcm' }, body: { text: clean, model_id: this.opts.modelId }, sampleRate: 16000 },
      clean,
      this.opts.sampleRate,
      conn,
    )
  }
}
