import { expect, test } from 'bun:test'
import { retryOnDeadlock } from '../../../src/platform/db/index.ts'

const failing = (codes: string[]) => {
  let calls = 0
  return {
    work: async () => {
      const code = codes[calls++]
      if (code) throw Object.assign(new Error(`failed with ${code}`), { code })
      return calls
    },
    calls: () => calls,
  }
}

test('a statement ended by a deadlock or a serialization failure is run again until it succeeds', async () => {
  const w = failing(['40P01', '40001'])
  expect(await retryOnDeadlock(w.work)).toBe(3)
})

test('other errors are not retried, and a deadlock that keeps coming is thrown after the last attempt', async () => {
  const constraint = failing(['23503'])
  await expect(retryOnDeadlock(constraint.work)).rejects.toThrow('failed with 23503')
  expect(constraint.calls()).toBe(1)
  const stuck = failing(['40P01', '40P01', '40P01', '40P01', '40P01'])
  await expect(retryOnDeadlock(stuck.work, 4)).rejects.toThrow('failed with 40P01')
  expect(stuck.calls()).toBe(4)
})
