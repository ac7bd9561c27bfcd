import { describe, expect, test } from 'bun:test'
import { drain, ProviderError, ProviderStream } from '../../../src/realtime/voice/base.ts'
import type { AsyncQueue } from '../../../src/realtime/voice/queue.ts'

type Ev = { type: 'n'; n: number }

/** Echoes each pushed number; fails on negative ones; `quiet` numbers only keep the attempt alive. */
class Echo extends ProviderStream<number, Ev> {
  constructor(retries = 0, timeoutMs = 0, afterOutput = false) {
    super('echo', { maxRetries: retries, timeoutMs, retryIntervalMs: 1 })
    this.retryAfterOutput = afterOutput
  }
  get pending(): number {
    return this.input.size
  }
  protected async attempt(input: AsyncQueue<number>, emit: (e: Ev) => void, signal: AbortSignal) {
    for await (const n of input) {
      if (signal.aborted) return
      if (n < 0) throw new ProviderError('echo', 'status', 'negative', true)
      if (n === 0) this.keepAlive()
      else emit({ type: 'n', n })
    }
  }
}

describe('provider stream base', () => {
  test('a fatal error ends the stream, and later input is dropped rather than piling up', async () => {
    const s = new Echo()
    s.push(1)
    s.push(-1)
    const { events, errors } = await drain(s)
    expect(events).toEqual([{ type: 'n', n: 1 }])
    expect(errors.map((e) => e.willRetry)).toEqual([false])
    for (let i = 0; i < 1000; i++) s.push(i)
    expect(s.pending).toBe(0)
  })

  test('streams of audio are retried even after output (retryAfterOutput)', async () => {
    const s = new Echo(1, 0, true)
    s.push(1)
    s.push(-1)
    s.push(2)
    s.end()
    const { events, errors } = await drain(s)
    expect(events.map((e) => e.n)).toEqual([1, 2])
    expect(errors.map((e) => e.willRetry)).toEqual([true])
    expect(s.attempts).toBe(2)
  })

  test('keepAlive holds off the idle timeout; silence past it fails the attempt', async () => {
    const s = new Echo(0, 80)
    s.push(5)
    const beats = setInterval(() => s.push(0), 20)
    const first = await s[Symbol.asyncIterator]().next()
    expect(first.value).toEqual({ type: 'n', n: 5 })
    // the heartbeats keep it alive for well past the timeout; then they stop and it times out
    await new Promise<void>((resolve) => {
      let count = 0
      const watch = setInterval(() => {
        if (++count === 10) {
          clearInterval(beats)
          clearInterval(watch)
          resolve()
        }
      }, 20)
    })
    const rest = await drain(s)
    expect(rest.errors.map((e) => [e.error.kind, e.willRetry])).toEqual([['timeout', false]])
  })

  test('close() drops events not yet read and ends iteration without an error', async () => {
    const s = new Echo()
    for (let i = 1; i <= 5; i++) s.push(i)
    const it = s[Symbol.asyncIterator]()
    expect((await it.next()).value).toEqual({ type: 'n', n: 1 })
    s.close()
    expect((await it.next()).done).toBe(true)
  })

  test('push after end() is a caller bug and says so', () => {
    const s = new Echo()
    s.end()
    expect(() => s.push(1)).toThrow(/push after end/)
  })
})
