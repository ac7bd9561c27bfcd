import { describe, expect, test } from 'bun:test'
import { parseRange, recordingUrlKey, signedRecordingUrl, verifyRecordingLink } from '../../../src/features/calls/records/index.ts'

const key = recordingUrlKey(Buffer.alloc(32, 7))
const now = new Date('2026-11-23T18:00:00Z')
const parts = (url: string) => {
  const u = new URL(url)
  return { id: decodeURIComponent(u.pathname.split('/').pop()!), expires: u.searchParams.get('expires')!, signature: u.searchParams.get('signature')! }
}

describe('signed recording links', () => {
  test('a link verifies until it expires, then says expired', () => {
    const p = parts(signedRecordingUrl('https://pbx.example.com', key, 'call_1', now, 60))
    expect(verifyRecordingLink(key, p.id, p.expires, p.signature, now)).toEqual({ ok: true })
    expect(verifyRecordingLink(key, p.id, p.expires, p.signature, new Date(now.getTime() + 61_000))).toEqual({ ok: false, reason: 'expired' })
  })

  test('another call id, a moved expiry, a changed signature or another key are refused', () => {
    const p = parts(signedRecordingUrl('https://pbx.example.com', key, 'call_1', now, 60))
    expect(verifyRecordingLink(key, 'call_2', p.expires, p.signature, now).ok).toBe(false)
    expect(verifyRecordingLink(key, p.id, String(Number(p.expires) + 3600), p.signature, now).ok).toBe(false)
    expect(verifyRecordingLink(key, p.id, p.expires, `${p.signature.slice(0, -1)}A`, now).ok).toBe(false)
    expect(verifyRecordingLink(recordingUrlKey(Buffer.alloc(32, 8)), p.id, p.expires, p.signature, now).ok).toBe(false)
    expect(verifyRecordingLink(key, p.id, undefined, p.signature, now).ok).toBe(false)
    expect(verifyRecordingLink(key, p.id, '1e99', p.signature, now).ok).toBe(false)
  })

  test('the link is absolute on the configured base', () => {
    expect(signedRecordingUrl('https://pbx.example.com', key, 'call_1', now, 60)).toStartWith('https://pbx.example.com/recordings/call_1?expires=')
  })
})

describe('Range header', () => {
  test.each([
    ['bytes=0-99', { start: 0, end: 99 }],
    ['bytes=100-', { start: 100, end: 999 }],
    ['bytes=-10', { start: 990, end: 999 }],
    ['bytes=900-5000', { start: 900, end: 999 }],
    ['Bytes=0-99', { start: 0, end: 99 }],
    ['bytes=-5000', { start: 0, end: 999 }],
    ['bytes=1000-', 'unsatisfiable'],
    ['bytes=1000-1200', 'unsatisfiable'],
    ['bytes=-0', 'unsatisfiable'],
    // RFC 9110: a Range the server does not serve is ignored, the whole file goes out with 200
    ['bytes=5-2', 'ignore'],
    ['bytes=0-1,5-6', 'ignore'],
    ['bytes=0-1, 5-6', 'ignore'],
    ['items=0-1', 'ignore'],
    ['bytes = 0-1', 'ignore'],
    ['bytes=0 - 1', 'ignore'],
    ['bytes=-', 'ignore'],
    ['bytes=a-b', 'ignore'],
  ])('%s of a 1000-byte file', (header, want) => {
    expect(parseRange(header as string, 1000)).toEqual(want as never)
  })
})
