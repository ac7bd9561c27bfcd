// Preemptive generation: the reply to the caller's words is requested while the endpoint is
// still pending, and streamed from what the model already wrote once the turn is decided.
import { type ConnOptions, RelayStream, type StreamEvent } from '../base.ts'
import type { ChatRequest, Llm, LlmEvent, LlmStream } from '../llm/contract.ts'
import { DEFAULT_SPLITTER, SentenceSplitter } from '../turn/sentences.ts'

/** One reply requested ahead of its turn; `key` says which words and history it answers. */
export class Preemption {
  readonly events: StreamEvent<LlmEvent>[] = []
  finished = false
  /** The first piece of the reply the sentence splitter gives (what TTS gets first), or undefined. */
  readonly firstSentence: Promise<string | undefined>
  private readonly stream: LlmStream
  private claimed = false
  private waiters: (() => void)[] = []

  constructor(
    private readonly llm: Llm,
    readonly key: string,
    request: ChatRequest,
  ) {
    this.stream = llm.chat(request)
    let first!: (s: string | undefined) => void
    this.firstSentence = new Promise((resolve) => (first = resolve))
    void this.pump(first)
  }

  /** Usage the provider reported, when it got that far (a reply thrown away is still billed). */
  get usage(): { inputTokens: number; outputTokens: number; cachedInputTokens?: number } | undefined {
    const u = this.events.find((e) => e.type === 'usage')
    if (u?.type !== 'usage') return undefined
    return { inputTokens: u.inputTokens, outputTokens: u.outputTokens, ...(u.cachedInputTokens ? { cachedInputTokens: u.cachedInputTokens } : {}) }
  }

  /** The model, whose next chat() is this reply (replayed, then live); later ones are new requests. */
  asLlm(): Llm {
    const self = this
    return {
      provider: this.llm.provider,
      model: this.llm.model,
      capabilities: this.llm.capabilities,
      chat(request: ChatRequest, conn?: ConnOptions): LlmStream {
        if (self.claimed) return self.llm.chat(request, conn)
        self.claimed = true
        return self.replay()
      },
      complete: (messages, options) => this.llm.complete(messages, options),
    }
  }

  /** Everything the model wrote so far, then the rest as it comes. */
  private replay(): LlmStream {
    return new RelayStream<LlmEvent>(this.llm.provider, this, async (emit, signal) => {
      const onAbort = () => this.wake()
      signal.addEventListener('abort', onAbort)
      try {
        for (let next = 0; ; ) {
          while (next < this.events.length) emit(this.events[next++]!)
          if (this.finished || signal.aborted) return
          await this.next()
        }
      } finally {
        signal.removeEventListener('abort', onAbort)
      }
    })
  }

  close(): void {
    this.stream.close()
    this.finished = true
    this.wake()
  }

  /** Resolves when more events came or the reply finished. */
  private next(): Promise<void> {
    if (this.finished) return Promise.resolve()
    return new Promise((resolve) => this.waiters.push(resolve))
  }

  private wake(): void {
    for (const w of this.waiters.splice(0)) w()
  }

  private async pump(first: (s: string | undefined) => void): Promise<void> {
    const splitter = new SentenceSplitter(DEFAULT_SPLITTER)
    for await (const ev of this.stream) {
      this.events.push(ev)
      if (ev.type === 'text') {
        const piece = splitter.push(ev.delta)[0]
        if (piece) first(piece)
      } else if (ev.type === 'tool_call' || (ev.type === 'error' && !ev.willRetry)) first(undefined)
      this.wake()
    }
    first(splitter.flush()[0])
    this.finished = true
    this.wake()
  }
}
