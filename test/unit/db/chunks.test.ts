// forEachChunk walks rows a chunk at a time and gives the event loop a turn between chunks: on
// SQLite every query answers at once, so without the turn a long walk holds HTTP and SIP.
import { expect, test } from 'bun:test'
import { forEachChunk } from '../../../src/platform/db/index.ts'

const range = (n: number) => Array.from({ length: n }, (_, i) => i)

/** A keyset query over `rows` (sorted ascending): the `size` rows after `last`. */
const keyset = (rows: number[], size: number, asked: (number | undefined)[] = []) => async (last: number | undefined) => {
  asked.push(last)
  return rows.filter((r) => last === undefined || r > last).slice(0, size)
}

test('rows in memory: every row is visited once, in order, in chunks of the size given with their offsets', async () => {
  const rows = range(1050)
  const seen: number[] = []
  const offsets: number[] = []
  await forEachChunk(rows, 100, (chunk, offset) => {
    expect(chunk.length).toBeLessThanOrEqual(100)
    offsets.push(offset)
    seen.push(...chunk)
  })
  expect(seen).toEqual(rows)
  expect(offsets).toEqual(range(11).map((i) => i * 100))
})

test('a query source: each chunk is asked after the last row of the one before, until a short chunk', async () => {
  const rows = range(250).map((i) => i * 2)
  const asked: (number | undefined)[] = []
  const seen: number[] = []
  await forEachChunk(keyset(rows, 100, asked), 100, (chunk) => {
    seen.push(...chunk)
  })
  expect(seen).toEqual(rows)
  expect(asked).toEqual([undefined, 198, 398])
})

test('a query source whose rows fill the last chunk exactly ends on the empty chunk after it, which work never sees', async () => {
  const chunks: number[][] = []
  await forEachChunk(keyset(range(200), 100), 100, (chunk) => {
    chunks.push(chunk)
  })
  expect(chunks.map((c) => c.length)).toEqual([100, 100])
})

test('no rows: work is never called', async () => {
  let calls = 0
  await forEachChunk([], 10, () => calls++)
  await forEachChunk(keyset([], 10), 10, () => calls++)
  expect(calls).toBe(0)
})

test('other work runs between chunks, not only after the walk', async () => {
  const marks: string[] = []
  setImmediate(() => marks.push('other'))
  await forEachChunk(range(3), 1, (chunk) => {
    marks.push(`chunk ${chunk[0]}`)
  })
  expect(marks).toEqual(['chunk 0', 'other', 'chunk 1', 'chunk 2'])
})

test('a timer due during a walk whose work never waits fires before the walk ends', async () => {
  let fired = false
  setTimeout(() => (fired = true), 1)
  let chunks = 0
  // without a turn between chunks the timer could not fire until all 100,000 chunks were done
  await forEachChunk(async () => (fired || chunks >= 100_000 ? [] : [chunks]), 1, () => {
    chunks++
  })
  expect(fired).toBe(true)
  expect(chunks).toBeLessThan(100_000)
})

test('an error thrown by work stops the walk and rejects with it', async () => {
  const seen: number[] = []
  const walk = forEachChunk(range(10), 2, (chunk) => {
    if (chunk[0] === 4) throw new Error('chunk 4 refused')
    seen.push(...chunk)
  })
  await expect(walk).rejects.toThrow('chunk 4 refused')
  expect(seen).toEqual([0, 1, 2, 3])
})

test('an error of the query stops the walk and rejects with it', async () => {
  const seen: number[] = []
  const failing = async (last: number | undefined) => {
    if (last !== undefined) throw new Error('connection lost')
    return [1, 2]
  }
  await expect(forEachChunk(failing, 2, (chunk) => seen.push(...chunk))).rejects.toThrow('connection lost')
  expect(seen).toEqual([1, 2])
})

test('a chunk size below one is refused', async () => {
  await expect(forEachChunk([1], 0, () => {})).rejects.toThrow('at least one row')
})
