// Preemptive generation: the reply to the caller's words is requested while the endpoint is
// still pending, and streamed from what the model already wrote once the turn is decided.
import { type ConnOptions, ProviderStream, type StreamEvent } from '../base.ts'
import type { ChatRequest, Llm, LlmEvent, LlmStream } from '../llm/contract.ts'
import type { AsyncQueue } from '../queue.ts'
import { DEFAULT_SPLITTER, SentenceSplitter } from '../turn/sentences.ts'

// the stream it replays owns retries and timeouts
const RELAY: ConnOptions = { maxRetries: 0, timeoutMs: 0, retryIntervalMs: 0 }

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
  get usage(): { inputTokens: number; outputTokens: number } | undefined {
    const u = this.events.find((e) => e.type === 'usage')
    return u?.type === 'usage' ? { inputTokens: u.inputTokens, outputTokens: u.outputTokens } : undefined
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
        return new ReplayStream(self)
      },
    }
  }

  close(): void {
    this.stream.close()
    this.finished = true
    this.wake()
  }

  /** Resolves when more events came or the reply finished. */
  next(): Promise<void> {
    if (this.finished) return Promise.resolve()
    return new Promise((resolve) => this.waiters.push(resolve))
  }

  wake(): void {
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

class ReplayStream extends ProviderStream<never, LlmEvent> {
  constructor(private readonly p: Preemption) {
    super('preempted-llm', RELAY)
  }

  protected async attempt(_input: AsyncQueue<never>, emit: (e: LlmEvent) => void, signal: AbortSignal): Promise<void> {
    const onAbort = () => this.p.wake()
    signal.addEventListener('abort', onAbort)
    try {
      for (let next = 0; ; ) {
        // an error event relayed keeps its own willRetry
        while (next < this.p.events.length) (emit as (e: StreamEvent<LlmEvent>) => void)(this.p.events[next++]!)
        if (this.p.finished || signal.aborted) return
        await this.p.next()
      }
    } finally {
      signal.removeEventListener('abort', onAbort)
    }
  }

  override close(): void {
    this.p.close()
    super.close()
  }
}
