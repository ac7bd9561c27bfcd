import { guardedFetch, OutboundRefusedError, type UrlPolicy } from '../net/index.ts'

export const WEBHOOK_TIMEOUT_MS = 10_000

export interface PostResult {
  statusCode: number | null
  error: string | null
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
    return { statusCode: res.status, error: ok ? null : `HTTP ${res.status}` }
  } catch (err) {
    if (err instanceof OutboundRefusedError) return { statusCode: null, error: `refused by the address rules: ${err.message}` }
    const e = err as Error
    return { statusCode: null, error: e.message === 'timed out' ? `no answer within ${WEBHOOK_TIMEOUT_MS} ms` : e.message.slice(0, 300) }
  }
}
