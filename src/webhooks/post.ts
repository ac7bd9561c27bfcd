import { checkOutboundUrl, type UrlPolicy } from '../net/index.ts'

export const WEBHOOK_TIMEOUT_MS = 10_000

export interface PostResult {
  statusCode: number | null
  error: string | null
}

/**
 * The one outbound POST of webhooks. The address rules are checked at send time (DNS may have
 * changed since the URL was saved). Redirects are not followed: a 3xx is an answer to retry.
 */
export async function postWebhook(url: string, headers: Record<string, string>, body: string, policy: UrlPolicy): Promise<PostResult> {
  const verdict = await checkOutboundUrl(url, policy)
  if (!verdict.ok) return { statusCode: null, error: `refused by the address rules: ${verdict.reason}` }
  try {
    const res = await fetch(verdict.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'user-agent': 'voice-agent-appliance-webhooks', ...headers },
      body,
      redirect: 'manual',
      signal: AbortSignal.timeout(WEBHOOK_TIMEOUT_MS),
    })
    // the body is not used; reading it frees the connection
    await res.arrayBuffer().catch(() => undefined)
    return { statusCode: res.status, error: res.ok ? null : `HTTP ${res.status}` }
  } catch (err) {
    const e = err as Error
    return { statusCode: null, error: e.name === 'TimeoutError' ? `no answer within ${WEBHOOK_TIMEOUT_MS} ms` : e.message.slice(0, 300) }
  }
}
