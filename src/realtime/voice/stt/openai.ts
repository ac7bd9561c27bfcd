import { type AudioFrame, concatFrames, writeWav } from '../audio.ts'
import { type ConnOptions, DEFAULT_CONN, ProviderError, ProviderStream, statusError } from '../base.ts'
import type { AsyncQueue } from '../queue.ts'
import type { Stt, SttEvent, SttStreamOptions } from './contract.ts'

export interface OpenAiSttOptions {
  /** Up to and including /v1. */
  baseUrl: string
  apiKey: string
  model: string
  language?: string
  conn?: ConnOptions
}

/** Longest utterance accepted in one request (the API's own file limit is 25 MB). */
export const MAX_UTTERANCE_MS = 120_000

/** The prompt's length at most: whisper reads only its last 224 tokens. */
export const MAX_PROMPT_CHARS = 800

/** The vocabulary as a transcription prompt: a list of the words in the spelling wanted, as many as fit. */
export function promptOf(vocabulary: readonly string[]): string {
  let prompt = ''
  for (const w of vocabulary) {
    const next = prompt ? `${prompt}, ${w}` : `Vocabulary: ${w}`
    if (next.length + 1 > MAX_PROMPT_CHARS) break
    prompt = next
  }
  return prompt && `${prompt}.`
}

/**
 * OpenAI audio/transcriptions: not streaming. Push one utterance's frames, call end(), get one
 * final. The voice session opens one stream per VAD-delimited utterance.
 */
export class OpenAiStt implements Stt {
  readonly provider = 'openai-stt'
  readonly capabilities = { streaming: false, interimResults: false, offline: false }

  constructor(private readonly opts: OpenAiSttOptions) {}

  stream(opts: SttStreamOptions = {}): OpenAiSttStream {
    return new OpenAiSttStream(this.opts, opts.language ?? this.opts.language, opts.conn ?? this.opts.conn ?? DEFAULT_CONN, promptOf(opts.vocabulary ?? []))
  }
}

export class OpenAiSttStream extends ProviderStream<AudioFrame, SttEvent> {
  private readonly frames: AudioFrame[] = []
  private bufferedMs = 0

  constructor(
    private readonly opts: OpenAiSttOptions,
    private readonly language: string | undefined,
    conn: ConnOptions,
    /** The transcription's prompt: the words it should spell as the agent does. */
    private readonly prompt = '',
  ) {
    super('openai-stt', conn)
  }

  protected async attempt(input: AsyncQueue<AudioFrame>, emit: (e: SttEvent) => void, signal: AbortSignal): Promise<void> {
    // audio survives a failed attempt: it is buffered here, not in the request
    for await (const frame of input) {
      if (this.frames[0] && frame.sampleRate !== this.frames[0].sampleRate) {
        throw new ProviderError(this.provider, 'config', 'frames of different sample rates in one utterance', false)
      }
      this.bufferedMs += (frame.samples.length * 1000) / frame.sampleRate
      if (this.bufferedMs > MAX_UTTERANCE_MS) {
        throw new ProviderError(this.provider, 'config', `utterance longer than ${MAX_UTTERANCE_MS} ms`, false)
      }
      this.frames.push(frame)
      this.keepAlive()
    }
    if (signal.aborted || this.frames.length === 0) return
    const form = new FormData()
    form.append('file', new Blob([writeWav(concatFrames(this.frames)) as Uint8Array<ArrayBuffer>], { type: 'audio/wav' }), 'utterance.wav')
    form.append('model', this.opts.model)
    form.append('response_format', 'json')
    if (this.language) form.append('language', this.language)
    if (this.prompt) form.append('prompt', this.prompt)
    const res = await fetch(`${this.opts.baseUrl.replace(/\/+$/, '')}/audio/transcriptions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${this.opts.apiKey}` },
      body: form,
      signal,
    })
    if (!res.ok) throw await statusError(this.provider, res)
    let body: { text?: unknown }
    try {
      body = (await res.json()) as { text?: unknown }
    } catch {
      throw new ProviderError(this.provider, 'protocol', 'response is not JSON', true)
    }
    if (typeof body.text !== 'string') throw new ProviderError(this.provider, 'protocol', 'response has no text', false)
    const text = body.text.trim()
    if (text) emit({ type: 'final', text, confidence: 1, startMs: 0, endMs: Math.round(this.bufferedMs), endOfTurn: true })
    emit({ type: 'usage', audioMs: Math.round(this.bufferedMs) })
  }
}
