import { describe, expect, test } from 'bun:test'
import { CallRefused } from '../../../src/features/calls/index.ts'
import { AppError } from '../../../src/platform/errors.ts'
import { errorBody, toAppError } from '../../../src/http/errors.ts'
import { pointerToPath } from '../../../src/platform/schema/index.ts'
import { decodeCursor, encodeCursor, finishPage } from '../../../src/platform/db/index.ts'
import { RateLimiter } from '../../../src/http/rate-limit.ts'
import { createLogger } from '../../../src/platform/log.ts'

describe('rate limiter maths', () => {
  test('a key may spend its burst at once, then refills at the sustained rate', () => {
    const rl = new RateLimiter(2, 3)
    expect([rl.take('k', 0), rl.take('k', 0), rl.take('k', 0)]).toEqual([0, 0, 0])
    expect(rl.take('k', 0)).toBe(1)
    expect(rl.take('k', 500)).toBe(0)
    expect(rl.take('k', 500)).toBe(1)
    expect(rl.take('other', 500)).toBe(0)
  })

  test('a rate of 0 turns the limit off', () => {
    const rl = new RateLimiter(0, 0)
    for (let i = 0; i < 1000; i++) expect(rl.take('k', 0)).toBe(0)
  })

  test('retry-after grows with the deficit at slow rates', () => {
    const rl = new RateLimiter(0.1, 1)
    expect(rl.take('k', 0)).toBe(0)
    expect(rl.take('k', 0)).toBe(10)
  })
})

describe('cursors and pages', () => {
  test('a cursor round-trips and is opaque', () => {
    const c = encodeCursor(['2026-11-21T10:00:00.000Z', 'ws_1'])
    expect(c).not.toContain('ws_1')
    expect(decodeCursor(c)).toEqual(['2026-11-21T10:00:00.000Z', 'ws_1'])
    expect(decodeCursor(undefined)).toBeUndefined()
  })

  test('a cursor that is not ours is a 400 naming the cursor', () => {
    for (const bad of ['x', encodeCursor(['a', 'b']).slice(2), Buffer.from('[1,2]').toString('base64url')]) {
      try {
        decodeCursor(bad)
        throw new Error('accepted')
      } catch (err) {
        expect(err).toBeInstanceOf(AppError)
        expect((err as AppError).status).toBe(400)
      }
    }
  })

  test('finishPage trims the lookahead row and points the cursor at the last row kept', () => {
    const rows = [{ t: '3', id: 'c' }, { t: '2', id: 'b' }, { t: '1', id: 'a' }]
    const page = finishPage(rows, 2, (r) => [r.t, r.id])
    expect(page.items).toEqual(rows.slice(0, 2))
    expect(decodeCursor(page.nextCursor ?? undefined)).toEqual(['2', 'b'])
    expect(finishPage(rows, 3, (r) => [r.t, r.id]).nextCursor).toBeNull()
  })
})

describe('errors', () => {
  test('JSON pointers become field paths', () => {
    expect(pointerToPath('/settings/maxConcurrent')).toBe('settings.maxConcurrent')
    expect(pointerToPath('/contacts/0/to')).toBe('contacts[0].to')
    expect(pointerToPath('/a~1b')).toBe('a/b')
    expect(pointerToPath('')).toBe('')
  })

  test('an unexpected error becomes a 500 internal with no detail, and is logged', () => {
    const lines: string[] = []
    const log = createLogger('error', { write: (s: string) => lines.push(s) })
    const err = toAppError('UNKNOWN', new TypeError('secret internals at db.ts:12'), log, 'req_1')
    expect(err.status).toBe(500)
    const body = errorBody(err, 'req_1')
    expect(body).toEqual({ error: { code: 'internal', message: 'internal error', requestId: 'req_1' } })
    expect(lines.join('')).toContain('secret internals')
  })

  test('a call the appliance refuses (a domain error) is answered 503 not_ready with its Retry-After, and not logged as a fault', () => {
    const lines: string[] = []
    const log = createLogger('error', { write: (s: string) => lines.push(s) })
    const err = toAppError('UNKNOWN', new CallRefused('no_place', 'no RTP port is free; too many calls'), log, 'req_2')
    expect(err).toMatchObject({ status: 503, code: 'not_ready', message: 'no RTP port is free; too many calls', details: { reason: 'no_place' }, headers: { 'Retry-After': '5' } })
    expect(toAppError('UNKNOWN', new CallRefused('unavailable'), log, 'req_3')).toMatchObject({ status: 404, code: 'not_found', details: { reason: 'unavailable' }, headers: undefined })
    expect(lines).toEqual([])
  })
})
