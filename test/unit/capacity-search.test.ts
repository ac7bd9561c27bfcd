// `voice-agent capacity`'s search for the most calls that hold their goals, and its write of
// CALLS_MAX: a bounded number of probes, and a config file kept whole or not touched.
import { expect, test } from 'bun:test'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { findCapacity } from '../../src/app/cli/capacity/search.ts'
import { writeCallsMax } from '../../src/app/cli/capacity/write.ts'
import { tempDir } from '../helpers/tmp.ts'

const upTo = (limit: number) => async (calls: number) => ({ holds: calls <= limit, figure: `lag at ${calls}` })

test('the search finds the most calls that hold, doubling then halving the gap', async () => {
  const found = await findCapacity(upTo(13), 200)
  expect(found.calls).toBe(13)
  expect(found.limitedBy).toBe('14 calls: lag at 14')
  expect(found.probed.map((p) => p.calls)).toEqual([1, 2, 4, 8, 16, 12, 14, 13])
})

test('the search stops at the most it may probe, and at none when one call fails', async () => {
  expect(await findCapacity(upTo(1000), 5)).toMatchObject({ calls: 5, limitedBy: 'held at the most probed (5): lag at 5' })
  expect((await findCapacity(upTo(1000), 5)).probed.map((p) => p.calls)).toEqual([1, 2, 4, 5])
  expect(await findCapacity(upTo(0), 200)).toMatchObject({ calls: 0, limitedBy: '1 calls: lag at 1' })
})

test('CALLS_MAX is written into the config file beside its other keys, or the file is made', () => {
  const dir = tempDir('capacity-write-')
  const file = join(dir, 'appliance.config.json')
  writeFileSync(file, JSON.stringify({ HTTP_PORT: 3111, CALLS_MAX: 90 }))
  writeCallsMax(file, 7)
  expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ HTTP_PORT: 3111, CALLS_MAX: 7 })
  const fresh = join(dir, 'new.json')
  writeCallsMax(fresh, 3)
  expect(JSON.parse(readFileSync(fresh, 'utf8'))).toEqual({ CALLS_MAX: 3 })
})

test('a config file that is not a JSON object is refused and left as it was', () => {
  const file = join(tempDir('capacity-write-'), 'c.json')
  for (const text of ['{"HTTP_PORT": ', '[1]']) {
    writeFileSync(file, text)
    expect(() => writeCallsMax(file, 7)).toThrow(/nothing written/)
    expect(readFileSync(file, 'utf8')).toBe(text)
  }
})
