import { createHmac, timingSafeEqual } from 'node:crypto'

/**
 * Twilio's request signature (X-Twilio-Signature): base64 HMAC-SHA1 over the full URL Twilio
 * requested, followed by the POST parameters sorted by name, each as name then value. Pure.
 */
export function twilioSignature(authToken: string, url: string, postParams: Record<string, string> = {}): string {
  let data = url
  for (const key of Object.keys(postParams).sort()) data += key + postParams[key]
  return createHmac('sha1', authToken).update(data, 'utf8').digest('base64')
}

export function signatureMatches(authToken: string, url: string, given: string, postParams: Record<string, string> = {}): boolean {
  const want = Buffer.from(twilioSignature(authToken, url, postParams))
  const got = Buffer.from(given)
  return want.length === got.length && timingSafeEqual(want, got)
}
