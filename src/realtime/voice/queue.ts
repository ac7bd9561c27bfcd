/**
 * A single-consumer async queue: producers push, one `for await` drains. `close()` ends the
 * iteration after the buffered items; `fail(err)` makes the next read throw.
 */
export class AsyncQueue<T> implements AsyncIterable<T> {
  private items: T[] = []
  private waiter: ((r: IteratorResult<T>) => void) | undefined
  private failWaiter: ((err: unknown) => void) | undefined
  private closed = false
  private error: unknown

  get isClosed(): boolean {
    return this.closed
  }

  get size(): number {
    return this.items.length
  }

  push(item: T): void {
    if (this.closed) return
    const w = this.waiter
    if (w) {
      this.waiter = undefined
      this.failWaiter = undefined
      w({ value: item, done: false })
    } else this.items.push(item)
  }

  /** Ends the iteration; `discard` drops items not yet read instead of delivering them first. */
  close(discard = false): void {
    if (discard) this.items.length = 0
    if (this.closed) return
    this.closed = true
    const w = this.waiter
    if (w && this.items.length === 0) {
      this.waiter = undefined
      this.failWaiter = undefined
      w({ value: undefined, done: true })
    }
  }

  /** Ends a pending read as if the queue were closed, without closing it (a reader was abandoned). */
  wake(): void {
    const w = this.waiter
    this.waiter = undefined
    this.failWaiter = undefined
    w?.({ value: undefined, done: true })
  }

  fail(err: unknown): void {
    if (this.closed) return
    this.error = err
    this.closed = true
    const f = this.failWaiter
    this.waiter = undefined
    this.failWaiter = undefined
    f?.(err)
  }

  next(): Promise<IteratorResult<T>> {
    if (this.items.length > 0) return Promise.resolve({ value: this.items.shift() as T, done: false })
    if (this.error !== undefined) return Promise.reject(this.error)
    if (this.closed) return Promise.resolve({ value: undefined, done: true })
    return new Promise((resolve, reject) => {
      this.waiter = resolve
      this.failWaiter = reject
    })
  }

  [Symbol.asyncIterator](): AsyncIterator<T> {
    return { next: () => this.next(), return: async () => { this.close(); return { value: undefined, done: true } } }
  }
}
