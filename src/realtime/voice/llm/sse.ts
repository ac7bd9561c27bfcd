/** One Server-Sent Event (WHATWG HTML "event stream" format). */
export interface SseEvent {
  event: string
  data: string
  id?: string
}

/**
 * Incremental event-stream parser: feed text as it arrives, get whole events back. Handles
 * CRLF/CR/LF line ends, multi-line `data:`, comments and fields without a space after the colon.
 */
export class SseParser {
  private buffer = ''
  private data: string[] = []
  private event = ''
  private id: string | undefined

  feed(chunk: string): SseEvent[] {
    this.buffer += chunk
    const out: SseEvent[] = []
    for (;;) {
      const m = /\r\n|\r|\n/.exec(this.buffer)
      if (!m) break
      // a lone CR at the very end may be the first half of CRLF: wait for more
      if (m[0] === '\r' && m.index === this.buffer.length - 1) break
      const line = this.buffer.slice(0, m.index)
      this.buffer = this.buffer.slice(m.index + m[0].length)
      const ev = this.line(line)
      if (ev) out.push(ev)
    }
    return out
  }

  /** End of stream: a final event without its blank line is dropped, as the spec says. */
  finish(): void {
    this.buffer = ''
    this.data = []
    this.event = ''
  }

  private line(line: string): SseEvent | undefined {
    if (line === '') {
      if (this.data.length === 0) {
        this.event = ''
        return undefined
      }
      const ev: SseEvent = { event: this.event || 'message', data: this.data.join('\n') }
      if (this.id !== undefined) ev.id = this.id
      this.data = []
      this.event = ''
      return ev
    }
    if (line.startsWith(':')) return undefined
    const colon = line.indexOf(':')
    const field = colon === -1 ? line : line.slice(0, colon)
    let value = colon === -1 ? '' : line.slice(colon + 1)
    if (value.startsWith(' ')) value = value.slice(1)
    if (field === 'data') this.data.push(value)
    else if (field === 'event') this.event = value
    else if (field === 'id') this.id = value
    return undefined
  }
}

/** Reads a fetch body as SSE events until it ends or the signal aborts. */
export async function* readSse(body: ReadableStream<Uint8Array>, signal: AbortSignal): AsyncGenerator<SseEvent> {
  const parser = new SseParser()
  const decoder = new TextDecoder()
  const reader = body.getReader()
  const onAbort = () => void reader.cancel().catch(() => {})
  signal.addEventListener('abort', onAbort)
  try {
    for (;;) {
      const { value, done } = await reader.read()
      if (done) break
      for (const ev of parser.feed(decoder.decode(value, { stream: true }))) yield ev
    }
    for (const ev of parser.feed(decoder.decode() + '\n')) yield ev
    parser.finish()
  } finally {
    signal.removeEventListener('abort', onAbort)
    reader.releaseLock()
  }
}
