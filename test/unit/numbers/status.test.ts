import { describe, expect, test } from 'bun:test'
import { nextStatus, normalizeE164, strictE164 } from '../../../src/features/numbers/index.ts'

describe('phone number status', () => {
  test.each([
    ['unconfigured', { hasAgent: true }, 'active'],
    ['active', { hasAgent: false }, 'unconfigured'],
    ['active', { hasAgent: true, trunk: 'failed' }, 'error'],
    ['unconfigured', { hasAgent: false, trunk: 'failed' }, 'error'],
    ['error', { hasAgent: true }, 'error'],
    ['error', { hasAgent: true, trunk: 'ok' }, 'active'],
    ['error', { hasAgent: false, sipSettingsChanged: true }, 'unconfigured'],
    ['released', { hasAgent: true, trunk: 'ok' }, 'released'],
  ] as const)('%s with %o becomes %s', (from, input, to) => {
    expect(nextStatus(from, input)).toBe(to)
  })
})

describe('E.164', () => {
  test('strict form only for API input', () => {
    expect(strictE164('+14155550123')).toBe('+14155550123')
    for (const bad of ['14155550123', '+1 415 555 0123', '+1415555', '+999123456789', '+14155550123x']) expect(strictE164(bad)).toBeUndefined()
  })

  test('lenient form for numbers from the network', () => {
    expect(normalizeE164('14155550123')).toBe('+14155550123')
    expect(normalizeE164('+1 (415) 555-0123')).toBe('+14155550123')
    expect(normalizeE164('hello')).toBeUndefined()
  })
})
