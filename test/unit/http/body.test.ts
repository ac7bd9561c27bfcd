import { describe, expect, test } from 'bun:test'
import { JSON_LIMITS, jsonShapeProblem } from '../../../src/platform/schema/index.ts'

const shape = (text: string) => jsonShapeProblem(new TextEncoder().encode(text))

describe('JSON shape limits, checked on the raw text before parsing', () => {
  test('nesting up to the limit passes; one level more is refused', () => {
    const n = JSON_LIMITS.depth
    expect(shape('['.repeat(n) + ']'.repeat(n))).toBeUndefined()
    expect(shape('['.repeat(n + 1) + ']'.repeat(n + 1))).toBe(`is nested deeper than ${n} levels`)
  })

  test('a million unclosed brackets are refused without recursion', () => {
    expect(shape('['.repeat(1_000_000))).toBe(`is nested deeper than ${JSON_LIMITS.depth} levels`)
  })

  test('brackets, commas and escaped quotes inside strings do not count', () => {
    const text = JSON.stringify({ a: '[[[[{{{{'.repeat(100) + ',,,,'.repeat(5000) + '\\"[' })
    expect(shape(text)).toBeUndefined()
  })

  test('an array or object with too many members is refused, however shallow', () => {
    const max = JSON_LIMITS.members
    expect(shape(`[${'0,'.repeat(max - 1)}0]`)).toBeUndefined()
    expect(shape(`[${'0,'.repeat(max)}0]`)).toBe(`has an array or object with more than ${max} members`)
    expect(shape(`{${Array.from({ length: max + 1 }, (_, i) => `"k${i}":1`).join(',')}}`)).toContain('more than')
  })

  test('many small containers together are refused beyond the total of values', () => {
    const item = `[${'0,'.repeat(99)}0]`
    const count = Math.ceil(JSON_LIMITS.values / 100) + 1
    expect(shape(`{"a":[${Array(count).fill(item).join(',')}]}`)).toBe(`has more than ${JSON_LIMITS.values} values`)
  })
})
