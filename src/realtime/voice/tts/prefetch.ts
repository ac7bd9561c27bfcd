// A speculative first sentence (issue 22): the session synthesizes the sentence it expects to say
// while the caller's endpoint is still pending, plays it if the answer is what it guessed, and
// throws it away if the caller goes on.
import { type ConnOptions, isErrorEvent, RelayStream, type StreamEvent } from '../base.ts'
import type { Tts, TtsEvent, TtsPriority, TtsStream } from './contract.ts'

/** What the provider produced for a synthesis nobody heard (it may still be billed). */
export interface DiscardedSynthesis {
  characters: number
  audioMs: number
}

interface Prefetch {
  key: string
  stream: TtsStream
  /** Every event so far, in order: a claim replays them. */
  events: StreamEvent<TtsEvent>[]
  finished: boolean
  claimed: boolean
  done?: DiscardedSynthesis
  wake?: () => void
}

const sameText = (text: string) => text.replace(/\s+/g, ' ').trim()

/**
 * A Tts that can start one synthesis ahead of time. Its state is one call's guess: make one per
 * call, over the call's Tts. Each discarded synthesis is reported once: by discard()'s return, or
 * to `onDiscarded` when prefetch() or synthesize() of other text dropped it.
 */
export class PrefetchTts implements Tts {
  readonly provider: string
  readonly capabilities: Tts['capabilities']
  readonly sampleRate: number
  private pending: Prefetch | undefined

  constructor(
    readonly inner: Tts,
    private readonly onDiscarded?: (usage: DiscardedSynthesis) => void,
  ) {
    this.provider = inner.provider
    this.capabilities = inner.capabilities
    this.sampleRate = inner.sampleRate
  }

  /** The text of the prefetch waiting to be claimed, if any. */
  get pendingText(): string | undefined {
    return this.pending?.key
  }

  /** Whether the pending prefetch has all its audio (its synthesis finished). */
  get pendingFinished(): boolean {
    return this.pending?.finished ?? false
  }

  /** Starts synthesizing `text` now, keeping its events for the synthesize() that asks for it. */
  prefetch(text: string, conn?: ConnOptions, priority?: TtsPriority): void {
    const key = sameText(text)
    if (this.pending?.key === key) return
    this.drop()
    let stream: TtsStream
    try {
      stream = this.inner.synthesize(text, conn, priority)
    } catch {
      return // nothing speakable: synthesize() will say so when it is asked
    }
    const p: Prefetch = { key, stream, events: [], finished: false, claimed: false }
    this.pending = p
    void this.pump(p)
  }

  synthesize(text: string, conn?: ConnOptions, priority?: TtsPriority): TtsStream {
    const p = this.pending
    if (!p || p.key !== sameText(text)) {
      this.drop()
      return this.inner.synthesize(text, conn, priority)
    }
    this.pending = undefined
    p.claimed = true
    return new RelayStream<TtsEvent>(this.provider, p.stream, async (emit, signal) => {
      const onAbort = () => p.wake?.()
      signal.addEventListener('abort', onAbort)
      try {
        for (let next = 0; ; ) {
          while (next < p.events.length) emit(p.events[next++]!)
          if (p.finished || signal.aborted) return
          await new Promise<void>((resolve) => (p.wake = resolve))
        }
      } finally {
        signal.removeEventListener('abort', onAbort)
      }
    })
  }

  /** Stops a pending prefetch; what it cost when its synthesis had finished, else undefined. */
  discard(): DiscardedSynthesis | undefined {
    const p = this.pending
    if (!p) return undefined
    this.pending = undefined
    p.stream.close()
    return p.done
  }

  private drop(): void {
    const usage = this.discard()
    if (usage) this.onDiscarded?.(usage)
  }

  private async pump(p: Prefetch): Promise<void> {
    for await (const ev of p.stream) {
      if (isErrorEvent(ev) && !ev.willRetry && !p.claimed) {
        // a failed guess is forgotten: the synthesize() that comes asks the engine again
        if (this.pending === p) this.pending = undefined
        break
      }
      p.events.push(ev)
      if (ev.type === 'done') p.done = { characters: ev.characters, audioMs: ev.audioMs }
      p.wake?.()
    }
    p.finished = true
    p.wake?.()
  }
}
