import { describe, expect, test } from 'bun:test'
import { type Schema, validateArgs } from '../../../../src/realtime/voice/session/index.ts'

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
