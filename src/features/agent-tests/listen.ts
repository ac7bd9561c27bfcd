// When the agent speaks, from the audio the test phone hears: a frame is voiced when its RMS is
// above a floor; the agent has finished when it spoke since the caller's last turn and then was
// quiet for `quietMs`. Time is counted in the 20 ms frames the media clock plays out.
const FRAME_MS = 20
const VOICED_RMS = 400

type Waiter = { want: 'started' | 'finished'; resolve: () => void; timer: ReturnType<typeof setTimeout> }

export class AgentSpeech {
  private spokeSinceTurn = false
  private speaking = false
  private quietFrames = 0
  private waiters: Waiter[] = []
  private stopped = false

  constructor(private readonly quietMs: number) {}

  frame(pcm: Int16Array): void {
    let sum = 0
    for (const s of pcm) sum += s * s
    const voiced = Math.sqrt(sum / (pcm.length || 1)) > VOICED_RMS
    if (voiced) {
      this.quietFrames = 0
      if (!this.speaking) this.settle('started')
      this.speaking = this.spokeSinceTurn = true
    } else if (++this.quietFrames * FRAME_MS >= this.quietMs) {
      this.speaking = false
      if (this.spokeSinceTurn) this.settle('finished')
    }
  }

  /** The caller took its turn: what the agent says next is a new utterance. */
  next(): void {
    this.spokeSinceTurn = false
  }

  /** Resolves when the agent starts speaking (or after `maxMs`, or once the call is over). */
  started(maxMs: number): Promise<void> {
    return this.speaking ? Promise.resolve() : this.wait('started', maxMs)
  }

  /** Resolves when the agent has spoken since the last turn and is quiet again. */
  finished(maxMs: number): Promise<void> {
    return this.spokeSinceTurn && !this.speaking ? Promise.resolve() : this.wait('finished', maxMs)
  }

  stop(): void {
    this.stopped = true
    this.settle('started')
    this.settle('finished')
  }

  private wait(want: Waiter['want'], maxMs: number): Promise<void> {
    if (this.stopped) return Promise.resolve()
    return new Promise((resolve) => {
      const w: Waiter = { want, resolve, timer: setTimeout(() => this.drop(w), maxMs) }
      this.waiters.push(w)
    })
  }

  private drop(w: Waiter) {
    this.waiters = this.waiters.filter((x) => x !== w)
    w.resolve()
  }

  private settle(want: Waiter['want']) {
    for (const w of this.waiters.filter((x) => x.want === want)) {
      clearTimeout(w.timer)
      this.drop(w)
    }
  }
}
