import { describe, expect, test } from 'bun:test'
import { isNonPublicAddress, type Schema, validateArgs } from '../../../../src/voice/session/index.ts'

const schema: Schema = {
  type: 'object',
  properties: {
    city: { type: 'string', minLength: 2 },
    days: { type: 'integer', minimum: 1, maximum: 7 },
    unit: { type: 'string', enum: ['c', 'f'] },
    tags: { type: 'array', items: { type: 'string' } },
  },
  required: ['city'],
  additionalProperties: false,
}

describe('tool argument validation', () => {
  const cases: [string, unknown, string[]][] = [
    ['accepts valid arguments', { city: 'Oslo', days: 3, unit: 'c', tags: ['a'] }, []],
    ['requires required properties', { days: 3 }, ['arguments.city is required']],
    ['checks types', { city: 5 }, ['arguments.city must be of type string']],
    ['checks integers and bounds', { city: 'Oslo', days: 1.5 }, ['arguments.days must be an integer']],
    ['checks the maximum', { city: 'Oslo', days: 9 }, ['arguments.days must be at most 7']],
    ['checks enums', { city: 'Oslo', unit: 'k' }, ['arguments.unit must be one of "c", "f"']],
    ['checks array items', { city: 'Oslo', tags: ['a', 2] }, ['arguments.tags[1] must be of type string']],
    ['refuses unknown properties when closed', { city: 'Oslo', extra: 1 }, ['arguments.extra is not allowed']],
    ['refuses a non-object', 'Oslo', ['arguments must be of type object']],
  ]
  for (const [name, value, expected] of cases) test(name, () => expect(validateArgs(schema, value)).toEqual(expected))
})

describe('non-public addresses (SSRF rules)', () => {
  const cases: [string, boolean][] = [
    ['127.0.0.1', true],
    ['10.1.2.3', true],
    ['172.16.0.1', true],
    ['172.32.0.1', false],
    ['192.168.1.1', true],
    ['169.254.169.254', true],
    ['100.64.0.1', true],
    ['0.0.0.0', true],
    ['224.0.0.1', true],
    ['8.8.8.8', false],
    ['::1', true],
    ['::', true],
    ['fd00::1', true],
    ['fe80::1', true],
    ['::ffff:127.0.0.1', true],
    ['2606:4700::1111', false],
    ['not-an-ip', true],
  ]
  for (const [addr, expected] of cases) test(`${addr} is ${expected ? 'non-public' : 'public'}`, () => expect(isNonPublicAddress(addr)).toBe(expected))
})
