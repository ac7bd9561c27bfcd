/** A small typed event emitter; a throwing listener is reported, never propagated into the SIP stack. */
export class Emitter<E extends Record<string, unknown[]>> {
  private handlers: { [K in keyof E]?: Array<(...args: E[K]) => void> } = {}
  protected onListenerError: (err: unknown) => void = () => {}

  on<K extends keyof E>(event: K, fn: (...args: E[K]) => void): this {
    ;(this.handlers[event] ??= []).push(fn)
    return this
  }

  once<K extends keyof E>(event: K, fn: (...args: E[K]) => void): this {
    const wrap = (...args: E[K]) => {
      this.off(event, wrap)
      fn(...args)
    }
    return this.on(event, wrap)
  }

  off<K extends keyof E>(event: K, fn: (...args: E[K]) => void): this {
    this.handlers[event] = this.handlers[event]?.filter((f) => f !== fn)
    return this
  }

  /** Resolves with the arguments of the next `event`. */
  next<K extends keyof E>(event: K): Promise<E[K]> {
    return new Promise((res) => this.once(event, (...args) => res(args)))
  }

  listenerCount<K extends keyof E>(event: K): number {
    return this.handlers[event]?.length ?? 0
  }

  protected emit<K extends keyof E>(event: K, ...args: E[K]): boolean {
    const list = this.handlers[event]
    if (!list?.length) return false
    for (const fn of [...list]) {
      try {
        fn(...args)
      } catch (err) {
        this.onListenerError(err)
      }
    }
    return true
  }
}
