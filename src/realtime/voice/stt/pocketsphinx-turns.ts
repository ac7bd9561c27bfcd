/**
 * The order a decoder thread serves its utterances in. An utterance whose caller stopped talking
 * goes first: the agent's reply waits for its final. The others take turns, oldest audio first,
 * each for a bounded slice, so a thread that fell behind during crosstalk catches up on the
 * caller who is waiting instead of on callers still mid-sentence.
 */
export class DecodeTurns<U> {
  private readonly ended: U[] = []
  private readonly talking: U[] = []

  /** `u` has audio to decode; `ended`: its caller stopped talking (it moves ahead of the others). */
  add(u: U, ended: boolean): void {
    const i = this.talking.indexOf(u)
    if (ended) {
      if (i >= 0) this.talking.splice(i, 1)
      if (!this.ended.includes(u)) this.ended.push(u)
    } else if (i < 0 && !this.ended.includes(u)) {
      this.talking.push(u)
    }
  }

  /** The next utterance to serve (it leaves the turns; `add` it again if audio remains). */
  next(): U | undefined {
    return this.ended.shift() ?? this.talking.shift()
  }

  remove(u: U): void {
    for (const list of [this.ended, this.talking]) {
      const i = list.indexOf(u)
      if (i >= 0) list.splice(i, 1)
    }
  }

  get size(): number {
    return this.ended.length + this.talking.length
  }
}

/** Serves `turns` one slice per macrotask, so requests that arrive meanwhile are read between slices. */
export class TurnPump<U> {
  private scheduled = false

  constructor(
    private readonly turns: DecodeTurns<U>,
    private readonly serve: (u: U) => void,
  ) {}

  wake(): void {
    if (this.scheduled || this.turns.size === 0) return
    this.scheduled = true
    setImmediate(() => this.run())
  }

  private run(): void {
    this.scheduled = false
    const u = this.turns.next()
    if (u !== undefined) this.serve(u)
    this.wake()
  }
}
