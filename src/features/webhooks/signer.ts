import { randomBytes } from 'node:crypto'
import { Webhook } from 'standardwebhooks'

/** A new Standard Webhooks secret: whsec_ and 24 random bytes in base64. */
export const newWebhookSecret = (): string => `whsec_${randomBytes(24).toString('base64')}`

/**
 * The three Standard Webhooks headers. With more than one secret (during a rotation) the
 * signature header carries one `v1,<sig>` per secret, space-separated; receivers accept any.
 */
export function signedHeaders(secrets: string[], id: string, at: Date, body: string): Record<string, string> {
  return {
    'webhook-id': id,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': secrets.map((s) => new Webhook(s).sign(id, at, body)).join(' '),
  }
}
