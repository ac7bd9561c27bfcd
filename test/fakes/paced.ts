/** Simulated provider latency: how long before the first byte and between chunks. */
export interface Delays {
  firstMs: number
  chunkMs: number
}

export const NO_DELAY: Delays = { firstMs: 0, chunkMs: 0 }

/** A response body that sends `parts` with the given delays; `hang` sends nothing until cancelled. */
export function pacedBody(parts: (string | Uint8Array)[], delays: Delays, hang = false): ReadableStream<Uint8Array> {
  const enc = new TextEncoder()
  let cancelled = false
  const timers = new Set<ReturnType<typeof setTimeout>>()
  const wait = (ms: number) =>
    ms <= 0
      ? Promise.resolve()
      : new Promise<void>((r) => {
          const t = setTimeout(() => {
            timers.delete(t)
            r()
          }, ms)
          timers.add(t)
        })
  return new ReadableStream<Uint8Array>({
    async start(controller) {
      if (hang) return
      await wait(delays.firstMs)
      for (let i = 0; i < parts.length; i++) {
        if (cancelled) return
        if (i > 0) await wait(delays.chunkMs)
        if (cancelled) return
        const p = parts[i]!
        controller.enqueue(typeof p === 'string' ? enc.encode(p) : p)
      }
      if (!cancelled) controller.close()
    },
    cancel() {
      cancelled = true
      for (const t of timers) clearTimeout(t)
    },
  })
}

export function sse(data: unknown, event?: string): string {
  return `${event ? `event: ${event}\n` : ''}data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`
}

/** What a fake replies to the next request: a scripted answer, an HTTP failure, or silence. */
export type Planned<T> = T | { failStatus: number; body?: string } | { hang: true }

export function isFailure(p: unknown): p is { failStatus: number; body?: string } {
  return typeof p === 'object' && p !== null && 'failStatus' in p
}

export function isHang(p: unknown): p is { hang: true } {
  return typeof p === 'object' && p !== null && 'hang' in p
}
