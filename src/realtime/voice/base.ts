import { AsyncQueue } from './queue.ts'
import { backoffDelayMs } from '../../platform/backoff.ts'

/** Why a provider call failed; `retryable` says whether another attempt may succeed. */
export type ProviderErrorKind = 'timeout' | 'connection' | 'status' | 'protocol' | 'config' | 'aborted'

export class ProviderError extends Error {
  constructor(
    readonly provider: string,
    readonly kind: ProviderErrorKind,
    message: string,
    readonly retryable: boolean,
    readonly status?: number,
  ) {
    super(`${provider}: ${message}`)
  }
}

/** HTTP statuses worth another attempt: rate limits, timeouts and server faults. */
export function statusIsRetryable(status: number): boolean {
  return status === 408 || status === 409 || status === 429 || status >= 500
}

export async function statusError(provider: string, res: Response): Promise<ProviderError> {
  let body = ''
  try {
    body = (await res.text()).slice(0, 300)
  } catch {
    /* the body is only for the message */
  }
  return new ProviderError(provider, 'status', `HTTP ${res.status} ${body}`.trim(), statusIsRetryable(res.status), res.status)
}

export interface ConnOptions {
  /** Attempts after the first one. */
  maxRetries: number
  /** An attempt fails when the provider sends nothing for this long while we wait on it (0 = never). */
  timeoutMs: number
  /** Pause before a retry, doubled each time. */
  retryIntervalMs: number
}

export const DEFAULT_CONN: ConnOptions = { maxRetries: 2, timeoutMs: 10_000, retryIntervalMs: 100 }

/** Every stream ends its events with at most one fatal error; recoverable ones come before a retry. */
export interface ErrorEvent {
  type: 'error'
  error: ProviderError
  willRetry: boolean
}

export type StreamEvent<E> = E | ErrorEvent

/**
 * The one place that owns retries, timeouts and error events for every engine (VAD, STT, LLM,
 * TTS). An engine implements `attempt`; the base runs it, aborts it when the provider goes quiet
 * for `timeoutMs`, retries retryable failures and turns the final failure into an `error` event.
 * Input pushed during a failed attempt is not replayed to the next one.
 */
export abstract class ProviderStream<I, E extends { type: string }> implements AsyncIterable<StreamEvent<E>> {
  protected readonly input = new AsyncQueue<I>()
  private readonly output = new AsyncQueue<StreamEvent<E>>()
  private readonly abort = new AbortController()
  private started = false
  private ended = false
  /** Number of attempts made so far (1 after a first successful run). */
  attempts = 0

  constructor(
    readonly provider: string,
    protected readonly conn: ConnOptions = DEFAULT_CONN,
  ) {}

  /** One connection's worth of work; resolve when the provider is done, throw to fail. */
  protected abstract attempt(input: AsyncQueue<I>, emit: (event: E) => void, signal: AbortSignal): Promise<void>

  /** Whether a failure after events were already emitted may be retried (streams of audio: yes; a reply: no). */
  protected retryAfterOutput = false

  private rearm: (() => void) | undefined

  /** The provider showed it is alive without producing an event (a keep-alive, an empty result). */
  protected keepAlive(): void {
    this.rearm?.()
  }

  /** Input after end() is a caller bug; after a fatal error or close() it is dropped. */
  push(item: I): void {
    if (this.ended) throw new Error(`${this.provider}: push after end`)
    this.input.push(item)
    this.start()
  }

  /** No more input; the stream finishes once the provider has answered what was pushed. */
  end(): void {
    this.ended = true
    this.input.close()
    this.start()
  }

  /** Stops at once: the attempt is aborted, unread events are dropped, iteration ends without an error. */
  close(): void {
    this.ended = true
    this.input.close()
    this.abort.abort()
    this.output.close(true)
  }

  get signal(): AbortSignal {
    return this.abort.signal
  }

  [Symbol.asyncIterator](): AsyncIterator<StreamEvent<E>> {
    this.start()
    return this.output[Symbol.asyncIterator]()
  }

  private start(): void {
    if (this.started) return
    this.started = true
    void this.run()
  }

  private async run(): Promise<void> {
    for (let retry = 0; ; retry++) {
      this.attempts++
      const attemptAbort = new AbortController()
      const onOuterAbort = () => attemptAbort.abort()
      this.abort.signal.addEventListener('abort', onOuterAbort)
      let emitted = false
      let timer: ReturnType<typeof setTimeout> | undefined
      let timedOut = false
      const arm = () => {
        if (this.conn.timeoutMs <= 0) return
        if (timer) clearTimeout(timer)
        timer = setTimeout(() => {
          timedOut = true
          attemptAbort.abort()
        }, this.conn.timeoutMs)
      }
      const emit = (event: E) => {
        if (attemptAbort.signal.aborted) return
        emitted = true
        arm()
        this.output.push(event)
      }
      this.rearm = arm
      arm()
      // an attempt may be waiting on input or on the provider when it is aborted: stop waiting for it
      const aborted = new Promise<void>((resolve) => {
        attemptAbort.signal.addEventListener('abort', () => {
          this.input.wake()
          resolve()
        })
      })
      try {
        const running = this.attempt(this.input, emit, attemptAbort.signal)
        // once abandoned, its late failure is of no interest
        running.catch(() => {})
        await Promise.race([running, aborted])
        if (timedOut) throw this.timeoutError()
        if (this.abort.signal.aborted) return
        this.output.close()
        return
      } catch (raw) {
        if (this.abort.signal.aborted) return
        const error = timedOut ? this.timeoutError() : this.toProviderError(raw)
        const willRetry =
          error.retryable && retry < this.conn.maxRetries && (!emitted || this.retryAfterOutput)
        this.output.push({ type: 'error', error, willRetry })
        if (!willRetry) {
          // nobody reads input any more: drop what is pushed from now on
          this.input.close(true)
          this.output.close()
          return
        }
        await waitMs(backoffDelayMs(retry + 1, { firstMs: this.conn.retryIntervalMs, maxMs: Infinity }), this.abort.signal)
        if (this.abort.signal.aborted) return
      } finally {
        if (timer) clearTimeout(timer)
        this.rearm = undefined
        this.abort.signal.removeEventListener('abort', onOuterAbort)
      }
    }
  }

  private timeoutError(): ProviderError {
    return new ProviderError(this.provider, 'timeout', `no answer within ${this.conn.timeoutMs} ms`, true)
  }

  private toProviderError(raw: unknown): ProviderError {
    if (raw instanceof ProviderError) return raw
    const message = raw instanceof Error ? raw.message : String(raw)
    // fetch and WebSocket failures to reach the peer surface as TypeError / generic errors
    return new ProviderError(this.provider, 'connection', message, true)
  }
}

// a relayed stream owns retries and timeouts; the relay adds none
const RELAY: ConnOptions = { maxRetries: 0, timeoutMs: 0, retryIntervalMs: 0 }

/**
 * A stream whose events come from `relay` (which reads another stream: a TTS engine's, a
 * recorded LLM reply): error events pass through as they came, and close() also closes the source.
 */
export class RelayStream<E extends { type: string }> extends ProviderStream<never, E> {
  constructor(
    provider: string,
    private readonly source: { close(): void },
    private readonly relay: (emit: (event: StreamEvent<E>) => void, signal: AbortSignal) => Promise<void>,
  ) {
    super(provider, RELAY)
  }

  protected async attempt(_input: AsyncQueue<never>, emit: (e: E) => void, signal: AbortSignal): Promise<void> {
    const onAbort = () => this.source.close()
    signal.addEventListener('abort', onAbort)
    try {
      // the base pushes whatever it is given; an error event relayed keeps its own willRetry
      await this.relay(emit as (event: StreamEvent<E>) => void, signal)
    } finally {
      signal.removeEventListener('abort', onAbort)
    }
  }

  override close(): void {
    this.source.close()
    super.close()
  }
}

export function isErrorEvent<E extends { type: string }>(ev: StreamEvent<E>): ev is ErrorEvent {
  return ev.type === 'error'
}

export function waitMs(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve()
    const t = setTimeout(done, ms)
    function done() {
      clearTimeout(t)
      signal?.removeEventListener('abort', done)
      resolve()
    }
    signal?.addEventListener('abort', done)
  })
}

/** Collects a stream's events, splitting off errors; handy for callers that want the whole answer. */
export async function drain<E extends { type: string }>(
  stream: AsyncIterable<StreamEvent<E>>,
): Promise<{ events: E[]; errors: ErrorEvent[] }> {
  const events: E[] = []
  const errors: ErrorEvent[] = []
  for await (const ev of stream) {
    if (ev.type === 'error' && 'willRetry' in ev) errors.push(ev as ErrorEvent)
    else events.push(ev as E)
  }
  return { events, errors }
}
