// Signed, expiring recording links: /recordings/<callId>?expires=<unix s>&signature=<hmac>. Pure.
import { createHmac, timingSafeEqual } from 'node:crypto'

const sign = (key: Buffer, callId: string, expires: number) => createHmac('sha256', key).update(`recording:${callId}:${expires}`).digest('base64url')

/** The HMAC key for recording links, derived from the appliance's secret key (never the key itself). */
export const recordingUrlKey = (secretKey: Buffer): Buffer => createHmac('sha256', secretKey).update('recording-url-v1').digest()

export function signedRecordingUrl(baseUrl: string, key: Buffer, callId: string, now: Date, ttlSec: number): string {
  const expires = Math.floor(now.getTime() / 1000) + ttlSec
  return `${baseUrl}/recordings/${encodeURIComponent(callId)}?expires=${expires}&signature=${sign(key, callId, expires)}`
}

export type LinkVerdict = { ok: true } | { ok: false; reason: 'expired' | 'bad_signature' }

export function verifyRecordingLink(key: Buffer, callId: string, expires: string | undefined, signature: string | undefined, now: Date): LinkVerdict {
  if (!expires || !signature || !/^\d{1,12}$/.test(expires)) return { ok: false, reason: 'bad_signature' }
  const want = Buffer.from(sign(key, callId, Number(expires)))
  const got = Buffer.from(signature)
  if (want.length !== got.length || !timingSafeEqual(want, got)) return { ok: false, reason: 'bad_signature' }
  if (Number(expires) * 1000 <= now.getTime()) return { ok: false, reason: 'expired' }
  return { ok: true }
}

/**
 * What a Range header asks of a file of `size` bytes (RFC 9110 section 14): one byte range, or
 * 'unsatisfiable' (one well-formed byte range past the end, or `bytes=-0`: 416), or 'ignore'
 * (several ranges, another unit, spaces, last < first or anything else malformed: the whole
 * file with 200, as RFC 9110 lets a server ignore a Range it does not serve). The unit is
 * case-insensitive.
 */
export function parseRange(header: string, size: number): { start: number; end: number } | 'unsatisfiable' | 'ignore' {
  const m = /^bytes=(\d*)-(\d*)$/i.exec(header)
  if (!m || (m[1] === '' && m[2] === '')) return 'ignore'
  if (m[1] !== '' && m[2] !== '' && Number(m[2]) < Number(m[1])) return 'ignore'
  if (m[1] === '') {
    const n = Number(m[2])
    return n === 0 || size === 0 ? 'unsatisfiable' : { start: Math.max(0, size - n), end: size - 1 }
  }
  const start = Number(m[1])
  if (start >= size) return 'unsatisfiable'
  return { start, end: m[2] === '' ? size - 1 : Math.min(Number(m[2]), size - 1) }
}
