import { OutboundRefusedError } from '../../platform/net/index.ts'

/**
 * What members see of a failed attempt. The network error text beside it (`connect ECONNREFUSED
 * 192.0.2.2:9`, `self signed certificate`) is kept for admins and the log: shown to everyone it
 * let a member map which ports of a host answer.
 */
// webhooks.model.ts spells the same list as literals for the OpenAPI document
export const DELIVERY_ERROR_CODES = ['connection_failed', 'timeout', 'tls_failed', 'http_status', 'address_refused', 'internal_error'] as const
export type DeliveryErrorCode = (typeof DELIVERY_ERROR_CODES)[number]

export const DELIVERY_ERROR_DOC =
  'connection_failed: no connection (refused, reset, unreachable, the name does not resolve); timeout: no answer within 10 s; ' +
  'tls_failed: the TLS handshake or the certificate check failed; http_status: the receiver answered other than 2xx (see statusCode); ' +
  'address_refused: the URL resolves to an address the appliance may not send to; internal_error: the event could not be prepared'

// Node and BoringSSL name TLS failures by code (DEPTH_ZERO_SELF_SIGNED_CERT, ERR_SSL_WRONG_VERSION_NUMBER,
// ERR_TLS_CERT_ALTNAME_INVALID, UNABLE_TO_VERIFY_LEAF_SIGNATURE, CERT_HAS_EXPIRED, EPROTO, ...)
const TLS_CODE = /CERT|SSL|TLS|EPROTO|SIGNATURE|ISSUER|HOSTNAME_MISMATCH/
const TLS_TEXT = /certificate|ssl routines|tls/i

/** The coarse code of an error thrown by guardedFetch. */
export function deliveryErrorCode(err: unknown): DeliveryErrorCode {
  const e = err as { code?: unknown; message?: unknown }
  const code = typeof e?.code === 'string' ? e.code : ''
  const message = typeof e?.message === 'string' ? e.message : ''
  if (err instanceof OutboundRefusedError) return /does not resolve/.test(message) ? 'connection_failed' : 'address_refused'
  if (message === 'timed out' || code === 'ETIMEDOUT') return 'timeout'
  if (TLS_CODE.test(code) || TLS_TEXT.test(message)) return 'tls_failed'
  return 'connection_failed'
}
