import type { AudioFrame } from './audio.ts'
import type { ProviderError } from './base.ts'
import type { ChatRequest, Llm, ToolCall } from './llm/contract.ts'
import { AsyncQueue } from './queue.ts'
import { DEFAULT_SPLITTER, SentenceSplitter, type SplitterOptions } from './turn/sentences.ts'
import type { SpeechHandle } from './turn/speech-handle.ts'
import type { Tts, TtsStream } from './tts/contract.ts'

export interface ReplyOptions {
  llm: Llm
  request: ChatRequest
  tts: Tts
  speech: SpeechHandle
  /** Agent audio for playout, in order; called as soon as each piece is synthesized. */
  onAudio(frame: AudioFrame): void
  splitter?: SplitterOptions
  now?: () => number
}

export interface ReplyResult {
  outcome: 'completed' | 'interrupted' | 'failed'
  /** Everything the LLM wrote (the transcript keeps `speech.playedText` instead when interrupted). */
  text: string
  toolCalls: ToolCall[]
  inputTokens: number
  outputTokens: number
  /** The part of inputTokens the provider's prompt cache served. */
  cachedInputTokens?: number
  ttsCharacters: number
  ttsAudioMs: number
  /** Request sent -> first token. */
  llmTtftMs?: number
  /** First sentence sent to TTS -> its first audio. */
  ttsTtfbMs?: number
  /** Clock times, for voice-to-voice latency and for tests. */
  firstAudioAt?: number
  llmDoneAt?: number
  error?: ProviderError
}

/**
 * One agent reply: LLM text is cut into sentences as it streams, each sentence goes to TTS at
 * once, and audio is handed to playout in order, so the caller hears the first sentence while
 * the model is still writing. Stops everything when the speech handle is interrupted.
 */
export async function streamReply(opts: ReplyOptions): Promise<ReplyResult> {
  const now = opts.now ?? (() => performance.now())
  const started = now()
  const result: ReplyResult = { outcome: 'completed', text: '', toolCalls: [], inputTokens: 0, outputTokens: 0, ttsCharacters: 0, ttsAudioMs: 0 }
  const sentences = new AsyncQueue<string>()
  const ready = new AsyncQueue<{ text: string; stream: TtsStream; sentAt: number }>()
  const splitter = new SentenceSplitter(opts.splitter ?? DEFAULT_SPLITTER)
  const llmStream = opts.llm.chat(opts.request)
  const open = new Set<TtsStream>()
  const stopAll = () => {
    llmStream.close()
    for (const s of open) s.close()
    sentences.close()
    ready.close()
  }
  const fail = (error: ProviderError) => {
    if (result.outcome === 'completed') {
      result.outcome = 'failed'
      result.error = error
    }
    stopAll()
  }
  void opts.speech.done.then((state) => {
    if (state === 'interrupted') {
      result.outcome = 'interrupted'
      stopAll()
    }
  })

  const writing = (async () => {
    for await (const ev of llmStream) {
      if (ev.type === 'text') {
        result.llmTtftMs ??= now() - started
        result.text += ev.delta
        for (const s of splitter.push(ev.delta)) sentences.push(s)
      } else if (ev.type === 'tool_call') result.toolCalls.push(ev.call)
      else if (ev.type === 'usage') {
        result.inputTokens = ev.inputTokens
        result.outputTokens = ev.outputTokens
        if (ev.cachedInputTokens) result.cachedInputTokens = ev.cachedInputTokens
      } else if (ev.type === 'error' && !ev.willRetry) fail(ev.error)
    }
    result.llmDoneAt = now()
    if (result.outcome === 'completed') for (const s of splitter.flush()) sentences.push(s)
    sentences.close()
  })()

  // every sentence goes to TTS the moment it is complete; its audio waits in its own stream
  const starting = (async () => {
    for await (const text of sentences) {
      let stream: TtsStream
      try {
        stream = opts.tts.synthesize(text)
      } catch {
        continue // nothing speakable in this sentence (only punctuation)
      }
      if (ready.isClosed) {
        stream.close()
        break
      }
      open.add(stream)
      ready.push({ text, stream, sentAt: now() })
    }
    ready.close()
  })()

  const speaking = (async () => {
    for await (const current of ready) {
      if (result.outcome !== 'completed') {
        current.stream.close()
        continue
      }
      opts.speech.addSegment(current.text, 0, false)
      for await (const ev of current.stream) {
        if (ev.type === 'audio') {
          if (result.firstAudioAt === undefined) {
            result.firstAudioAt = now()
            result.ttsTtfbMs = result.firstAudioAt - current.sentAt
          }
          opts.speech.addAudio((ev.frame.samples.length * 1000) / ev.frame.sampleRate)
          opts.onAudio(ev.frame)
          if (opts.speech.state !== 'speaking') break
        } else if (ev.type === 'done') {
          opts.speech.completeSegment()
          result.ttsCharacters += ev.characters
          result.ttsAudioMs += ev.audioMs
        } else if (ev.type === 'error' && !ev.willRetry) fail(ev.error)
      }
      open.delete(current.stream)
    }
  })()

  await Promise.all([writing, starting, speaking])
  if (result.outcome === 'completed') opts.speech.finishInput()
  return result
}
