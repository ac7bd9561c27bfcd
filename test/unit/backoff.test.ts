// One backoff rule (src/platform/backoff.ts): the recordings uploader, the PostgreSQL change
// listener's reconnect and the providers' stream retries double their delays through it.
import { expect, test } from 'bun:test'
import { backoffDelayMs } from '../../src/platform/backoff.ts'
import { matchesByLine, srcFiles } from '../helpers/src-files.ts'

test('the delay doubles from firstMs with each failure and stops at maxMs', () => {
  const b = { firstMs: 250, maxMs: 10_000 }
  expect([0, 1, 2, 3, 4, 5, 6, 7, 8].map((n) => backoffDelayMs(n, b))).toEqual([250, 250, 500, 1000, 2000, 4000, 8000, 10_000, 10_000])
  expect(backoffDelayMs(3, { firstMs: 100, maxMs: Infinity })).toBe(400)
})

/** A delay doubled by hand: `xMs * 2`, `retryDelay * 2 ** n`. */
const DOUBLED_DELAY = [/\b\w*(?:Ms|Delay|delay|[Bb]ackoff)\w*\s*\*\s*2\b/g]

test('no code of src/ doubles a retry delay of its own: it asks platform/backoff.ts', () => {
  const found = [...srcFiles()].filter(([path]) => path !== 'platform/backoff.ts').flatMap(([path, text]) => matchesByLine(text, DOUBLED_DELAY).map((m) => `${path}:${m}`))
  expect(found).toEqual([])
})

test('the scan finds the hand-made doublings the three retries had', () => {
  const before = [
    'this.backoffMs = Math.min(this.backoffMs * 2, 10_000)',
    'Math.min(b.maxMs, b.firstMs * 2 ** Math.max(0, failures - 1))',
    'await waitMs(this.conn.retryIntervalMs * 2 ** retry, this.abort.signal)',
    'sessionId: Math.floor(Math.random() * 2 ** 31)',
  ]
  expect(before.map((line) => matchesByLine(line, DOUBLED_DELAY).length)).toEqual([1, 1, 1, 0])
})
