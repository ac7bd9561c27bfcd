import { guardedFetch, OutboundRefusedError, type UrlPolicy } from '../../platform/net/index.ts'
import { type DeliveryErrorCode, deliveryErrorCode } from './delivery-error.ts'

export const WEBHOOK_TIMEOUT_MS = 10_000

export interface PostResult {
  statusCode: number | null
  /** The coarse code every member may read; null when a 2xx came back. */
  error: DeliveryErrorCode | null
  /** What exactly went wrong, for admins and the log. */
  detail: string | null
}

/**
 * The one outbound POST of webhooks. The address rules are checked at send time on the address
 * actually connected to (resolved once, no second lookup to rebind). Redirects are not
 * followed: a 3xx is an answer to retry.
 */
export async function postWebhook(url: string, headers: Record<string, string>, body: string, policy: UrlPolicy): Promise<PostResult> {
  try {
    const res = await guardedFetch(
      url,
      { method: 'POST', headers: { 'content-type': 'application/json', 'user-agent': 'voice-agent-appliance-webhooks', ...headers }, body },
      // the body is not used: a little of it is read so the connection closes cleanly
      { policy, timeoutMs: WEBHOOK_TIMEOUT_MS, maxResponseBytes: 4096 },
    )
    const ok = res.status >= 200 && res.status < 300
    return ok ? { statusCode: res.status, error: null, detail: null } : { statusCode: res.status, error: 'http_status', detail: `HTTP ${res.status}` }
  } catch (err) {
    const e = err as Error
    const error = deliveryErrorCode(err)
    if (err instanceof OutboundRefusedError) return { statusCode: null, error, detail: `refused by the address rules: ${e.message}` }
    return { statusCode: null, error, detail: error === 'timeout' ? `no answer within ${WEBHOOK_TIMEOUT_MS} ms` : String(e.message).slice(0, 300) }
  }
}
