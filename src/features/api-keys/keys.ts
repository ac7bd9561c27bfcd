import { createHash, randomBytes } from 'node:crypto'

export const KEY_PREFIX = 'vak_'

/** A new secret API key; only its hash is stored. */
export function generateKey(): string {
  return KEY_PREFIX + randomBytes(32).toString('base64url')
}

/** Keys carry 256 random bits, so a fast hash is enough: nothing to brute-force. */
export function hashKey(key: string): string {
  return createHash('sha256').update(key).digest('hex')
}

/** What stays visible after creation. */
export function keyHints(key: string): { prefix: string; last4: string } {
  return { prefix: key.slice(0, KEY_PREFIX.length + 6), last4: key.slice(-4) }
}
