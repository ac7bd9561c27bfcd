// Walking many rows a chunk at a time. bun:sqlite answers a query at once, so a loop that only
// awaits its queries never lets a timer, a socket or another request run: a 100,000-row walk
// would hold the event loop that HTTP and SIP share. On PostgreSQL every query already waits on
// the network, and the turn given between chunks costs a few microseconds.

/** Lets timers, I/O and other requests run before the caller goes on. */
export const yieldTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve))

/**
 * Where the chunks come from: rows in memory, cut into slices of `size`; or a query for the
 * chunk after `last`, the last row of the chunk before (undefined for the first), which applies
 * its own keyset condition, order and `limit(size)`.
 */
export type ChunkSource<T> = readonly T[] | ((last: T | undefined) => Promise<T[]>)

/**
 * Calls `work` on each chunk of at most `size` rows, in order, with the position of the chunk's
 * first row, and gives the event loop a turn between chunks. A query source ends with the first
 * chunk shorter than `size`; an empty chunk is not passed to `work`. An error thrown by the
 * source or by `work` stops the walk and is thrown.
 */
export async function forEachChunk<T>(source: ChunkSource<T>, size: number, work: (chunk: T[], offset: number) => unknown): Promise<void> {
  if (!(size >= 1)) throw new Error(`forEachChunk: a chunk holds at least one row (size ${size})`)
  const query = typeof source === 'function' ? source : undefined
  const rows = typeof source === 'function' ? undefined : source
  let last: T | undefined
  for (let offset = 0; ; ) {
    if (offset > 0) await yieldTurn()
    const chunk = query ? await query(last) : rows!.slice(offset, offset + size)
    if (chunk.length > 0) await work(chunk, offset)
    offset += chunk.length
    if (chunk.length < size || (rows && offset >= rows.length)) return
    last = chunk[chunk.length - 1]
  }
}
