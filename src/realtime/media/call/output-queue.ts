// The agent's outgoing audio: queued items of 16 kHz PCM, consumed in whatever block size the
// packetiser needs. Each item learns how many ms of it actually went out, including when a
// barge-in flushes the queue.

export interface PlaybackResult {
  /** Milliseconds of this item that were sent to the caller. */
  playedMs: number
  /** True when flush() cut the item short (or it never started). */
  interrupted: boolean
}

export interface PlaybackHandle {
  readonly id: number
  readonly durationMs: number
  /** Milliseconds sent so far. */
  readonly playedMs: number
  readonly done: Promise<PlaybackResult>
}

interface Item {
  handle: PlaybackHandle & { playedMs: number }
  pcm: Int16Array
  offset: number
  resolve: (r: PlaybackResult) => void
}

export class OutputQueue {
  private readonly items: Item[] = []
  private nextId = 1

  constructor(readonly sampleRate = 16000) {}

  enqueue(pcm: Int16Array): PlaybackHandle {
    let resolve!: (r: PlaybackResult) => void
    const done = new Promise<PlaybackResult>((r) => (resolve = r))
    const handle = { id: this.nextId++, durationMs: (pcm.length / this.sampleRate) * 1000, playedMs: 0, done }
    if (pcm.length === 0) resolve({ playedMs: 0, interrupted: false })
    else this.items.push({ handle, pcm, offset: 0, resolve })
    return handle
  }

  get pendingMs(): number {
    return (this.pendingSamples / this.sampleRate) * 1000
  }
  get pendingSamples(): number {
    return this.items.reduce((n, i) => n + i.pcm.length - i.offset, 0)
  }
  get idle(): boolean {
    return this.items.length === 0
  }

  /** Fills `out` from the queue (silence where it runs dry); returns the samples of real audio. */
  read(out: Int16Array): number {
    let filled = 0
    while (filled < out.length && this.items.length > 0) {
      const item = this.items[0]!
      const n = Math.min(out.length - filled, item.pcm.length - item.offset)
      const pcm = item.pcm
      for (let i = 0; i < n; i++) out[filled + i] = pcm[item.offset + i]!
      item.offset += n
      filled += n
      item.handle.playedMs = (item.offset / this.sampleRate) * 1000
      if (item.offset >= item.pcm.length) {
        this.items.shift()
        item.resolve({ playedMs: item.handle.playedMs, interrupted: false })
      }
    }
    out.fill(0, filled)
    return filled
  }

  /** Drops everything queued at once (barge-in); each item reports what it played. */
  flush(): PlaybackResult[] {
    const results = this.items.map((i) => ({ playedMs: i.handle.playedMs, interrupted: true }))
    this.items.splice(0).forEach((i, n) => i.resolve(results[n]!))
    return results
  }
}
