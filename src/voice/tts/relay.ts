import { type ConnOptions, type ErrorEvent, ProviderStream, type StreamEvent } from '../base.ts'
import type { AsyncQueue } from '../queue.ts'
import type { TtsEvent, TtsStream } from './contract.ts'

// the stream it relays owns retries and timeouts; the relay adds none
const RELAY: ConnOptions = { maxRetries: 0, timeoutMs: 0, retryIntervalMs: 0 }

export type RelayEmit = (event: StreamEvent<TtsEvent>) => void

/**
 * A TtsStream whose events come from `run` (which reads another engine's stream): error events
 * pass through as they came, and close() also closes the stream it reads.
 */
export class RelayTtsStream extends ProviderStream<never, TtsEvent> {
  constructor(
    provider: string,
    private readonly source: Pick<TtsStream, 'close'>,
    private readonly relay: (emit: RelayEmit, signal: AbortSignal) => Promise<void>,
  ) {
    super(provider, RELAY)
  }

  protected async attempt(_input: AsyncQueue<never>, emit: (e: TtsEvent) => void, signal: AbortSignal): Promise<void> {
    const onAbort = () => this.source.close()
    signal.addEventListener('abort', onAbort)
    try {
      // the base pushes whatever it is given; an error event relayed keeps its own willRetry
      await this.relay(emit as RelayEmit, signal)
    } finally {
      signal.removeEventListener('abort', onAbort)
    }
  }

  override close(): void {
    this.source.close()
    super.close()
  }
}

export function isErrorEvent(ev: StreamEvent<TtsEvent>): ev is ErrorEvent {
  return ev.type === 'error'
}
