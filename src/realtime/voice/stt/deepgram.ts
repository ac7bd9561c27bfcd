import { type AudioFrame, pcm16ToBytes } from '../audio.ts'
import { type ConnOptions, DEFAULT_CONN, ProviderError, ProviderStream } from '../base.ts'
import type { AsyncQueue } from '../queue.ts'
import type { Stt, SttEvent, SttStreamOptions } from './contract.ts'

export interface DeepgramOptions {
  /** e.g. wss://api.deepgram.com */
  baseUrl: string
  apiKey: string
  model: string
  language: string
  /** Silence (ms) after which Deepgram marks a final as speech_final. */
  endpointingMs: number
  /** Deepgram's UtteranceEnd gap, at least 1000. */
  utteranceEndMs: number
  conn?: ConnOptions
}

const KEEPALIVE_MS = 5000
/** Deepgram takes at most 100 key terms per request. */
export const MAX_KEYTERMS = 100
/** The intensifier on each keyword (models before Nova-3): a modest boost, as Deepgram advises to start. */
const KEYWORD_BOOST = 2

/** Deepgram live transcription over WebSocket (linear16 audio in, Results messages out). */
export class DeepgramStt implements Stt {
  readonly provider = 'deepgram-stt'
  readonly capabilities = { streaming: true, interimResults: true, offline: false }

  constructor(private readonly opts: DeepgramOptions) {}

  stream(opts: SttStreamOptions = {}): DeepgramStream {
    return new DeepgramStream(this.opts, opts.language ?? this.opts.language, opts.conn ?? this.opts.conn ?? DEFAULT_CONN, opts.vocabulary ?? [])
  }
}

/**
 * The vocabulary as Deepgram's query: Nova-3 and Flux take key terms, phrases too (keyterm
 * prompting); the models before them boost single words (keywords, each with an intensifier).
 */
export function vocabularyParams(model: string, vocabulary: readonly string[]): [string, string][] {
  if (/^(nova-3|flux)/.test(model)) return vocabulary.slice(0, MAX_KEYTERMS).map((term) => ['keyterm', term])
  const words = [...new Set(vocabulary.flatMap((v) => v.split(' ')).filter((w) => /\p{L}/u.test(w)))]
  return words.slice(0, MAX_KEYTERMS).map((w) => ['keywords', `${w}:${KEYWORD_BOOST}`])
}

type Json = any

export class DeepgramStream extends ProviderStream<AudioFrame, SttEvent> {
  /** Messages that were not JSON or lacked required fields; they are skipped, never fatal. */
  malformedMessages = 0

  constructor(
    private readonly opts: DeepgramOptions,
    private readonly language: string,
    conn: ConnOptions,
    private readonly vocabulary: readonly string[] = [],
  ) {
    super('deepgram-stt', conn)
    this.retryAfterOutput = true
  }

  listenUrl(sampleRate: number): string {
    const q = new URLSearchParams({
      model: this.opts.model,
      language: this.language,
      encoding: 'linear16',
      sample_rate: String(sampleRate),
      channels: '1',
      interim_results: 'true',
      punctuate: 'true',
      smart_format: 'true',
      endpointing: String(this.opts.endpointingMs),
      utterance_end_ms: String(Math.max(1000, this.opts.utteranceEndMs)),
      vad_events: 'true',
    })
    for (const [name, value] of vocabularyParams(this.opts.model, this.vocabulary)) q.append(name, value)
    return `${this.opts.baseUrl.replace(/\/+$/, '').replace(/^http/, 'ws')}/v1/listen?${q}`
  }

  protected async attempt(
    input: AsyncQueue<AudioFrame>,
    emit: (e: SttEvent) => void,
    signal: AbortSignal,
  ): Promise<void> {
    const first = await input.next()
    if (first.done || signal.aborted) return
    const sampleRate = first.value.sampleRate
    const ws = new WebSocket(this.listenUrl(sampleRate), { headers: { authorization: `Token ${this.opts.apiKey}` } } as never)
    ws.binaryType = 'arraybuffer'
    let closeSent = false
    const finished = new Promise<void>((resolve, reject) => {
      let opened = false
      ws.onopen = () => {
        opened = true
      }
      ws.onmessage = (ev) => {
        this.keepAlive()
        if (typeof ev.data === 'string') this.handle(ev.data, emit)
        else this.malformedMessages++
      }
      ws.onerror = () => {
        if (!opened) reject(new ProviderError(this.provider, 'connection', 'WebSocket connection failed', true))
      }
      ws.onclose = (ev) => {
        // a normal close we did not ask for (idle timeout, server restart) still loses the caller
        if ((ev.code === 1000 || ev.code === 1005) && (closeSent || signal.aborted)) resolve()
        else reject(new ProviderError(this.provider, 'connection', `WebSocket closed with ${ev.code} ${ev.reason}`, ev.code !== 1008))
      }
    })
    const onAbort = () => ws.close(1000)
    signal.addEventListener('abort', onAbort)
    const keepalive = setInterval(() => {
      if (ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify({ type: 'KeepAlive' }))
    }, KEEPALIVE_MS)
    try {
      await Promise.race([
        new Promise<void>((resolve) => ws.addEventListener('open', () => resolve(), { once: true })),
        finished,
      ])
      const send = (frame: AudioFrame) => {
        if (frame.sampleRate !== sampleRate) {
          throw new ProviderError(this.provider, 'config', `stream is ${sampleRate} Hz, frame is ${frame.sampleRate} Hz`, false)
        }
        ws.send(pcm16ToBytes(frame.samples))
      }
      send(first.value)
      const sending = (async () => {
        for await (const frame of input) {
          if (signal.aborted || ws.readyState !== WebSocket.OPEN) return
          send(frame)
        }
        if (ws.readyState === WebSocket.OPEN) {
          closeSent = true
          ws.send(JSON.stringify({ type: 'CloseStream' }))
        }
      })()
      await Promise.race([finished, sending.then(() => finished)])
    } finally {
      clearInterval(keepalive)
      signal.removeEventListener('abort', onAbort)
      if (ws.readyState === WebSocket.OPEN || ws.readyState === WebSocket.CONNECTING) ws.close(1000)
    }
  }

  private handle(text: string, emit: (e: SttEvent) => void): void {
    let msg: Json
    try {
      msg = JSON.parse(text)
    } catch {
      this.malformedMessages++
      return
    }
    switch (msg?.type) {
      case 'Results': {
        const alt = msg.channel?.alternatives?.[0]
        if (typeof alt?.transcript !== 'string' || typeof msg.start !== 'number' || typeof msg.duration !== 'number') {
          this.malformedMessages++
          return
        }
        const transcript = alt.transcript.trim()
        if (!transcript) return
        if (msg.is_final) {
          emit({
            type: 'final',
            text: transcript,
            confidence: typeof alt.confidence === 'number' ? alt.confidence : 0,
            startMs: Math.round(msg.start * 1000),
            endMs: Math.round((msg.start + msg.duration) * 1000),
            endOfTurn: msg.speech_final === true,
          })
        } else emit({ type: 'interim', text: transcript })
        return
      }
      case 'SpeechStarted':
        if (typeof msg.timestamp === 'number') emit({ type: 'speech_started', atMs: Math.round(msg.timestamp * 1000) })
        return
      case 'UtteranceEnd':
        if (typeof msg.last_word_end === 'number') emit({ type: 'utterance_end', atMs: Math.round(msg.last_word_end * 1000) })
        return
      case 'Metadata':
        if (typeof msg.duration === 'number') emit({ type: 'usage', audioMs: Math.round(msg.duration * 1000) })
        return
      default:
        return
    }
  }
}
