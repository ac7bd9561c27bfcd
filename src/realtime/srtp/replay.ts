// Packet indices and replay protection (RFC 3711 sections 3.3.1, 3.3.2 and Appendix A).
// An SRTP index is ROC * 65536 + SEQ (48 bits, exact in a double); an SRTCP index is the 31-bit
// counter the sender writes into each packet.

const SEQ_SPAN = 65536
const HALF = 32768

/**
 * The index of a packet with sequence number `seq`, guessed from the highest index seen so far
 * (RFC 3711 Appendix A): the rollover counter of `top`, or one either side of it when `seq` is
 * nearer to the previous or next cycle. Before the first packet, pass -1.
 */
export function estimateIndex(top: number, seq: number): number {
  if (top < 0) return seq
  const roc = Math.floor(top / SEQ_SPAN)
  const last = top % SEQ_SPAN
  let v = roc
  if (last < HALF) {
    if (seq - last > HALF && roc > 0) v = roc - 1
  } else if (last - HALF > seq) {
    v = roc + 1
  }
  return v * SEQ_SPAN + seq
}

export const DEFAULT_REPLAY_WINDOW = 128

/** `size` when it is a whole number of packets no smaller than RFC 3711 3.3.2's minimum of 64. */
export function replayWindowSize(size = DEFAULT_REPLAY_WINDOW): number {
  if (!Number.isInteger(size) || size < 64) throw new RangeError(`a replay window of ${size} packets is under the 64 RFC 3711 requires`)
  return size
}

/**
 * The indices received recently, for refusing a packet seen before. Anything older than the
 * window is refused too, because it can no longer be told apart from a replay.
 */
export class ReplayWindow {
  readonly size: number
  #top = -1
  readonly #seen: Uint8Array

  constructor(size = DEFAULT_REPLAY_WINDOW) {
    this.size = replayWindowSize(size)
    this.#seen = new Uint8Array(size)
  }

  /** The highest index accepted so far, -1 before the first. */
  get top(): number {
    return this.#top
  }

  /** Whether `index` may be accepted: ahead of the window, or inside it and not yet seen. */
  isFresh(index: number): boolean {
    if (index > this.#top) return true
    if (this.#top - index >= this.size) return false
    return this.#seen[index % this.size] === 0
  }

  /** Records `index` as received; call only once the packet has authenticated. */
  mark(index: number): void {
    const seen = this.#seen
    if (index > this.#top) {
      if (this.#top < 0 || index - this.#top >= this.size) seen.fill(0)
      else for (let i = this.#top + 1; i < index; i++) seen[i % this.size] = 0
      this.#top = index
    }
    seen[index % this.size] = 1
  }
}
