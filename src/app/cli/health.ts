// `voice-agent health`: GET /health of the appliance this configuration describes; exit 0 when it
// answers 200, else 1. For container HEALTHCHECKs and scripts on images without curl.
import type { Config } from '../../platform/config/index.ts'

export const HEALTH_TIMEOUT_MS = 3000

/** Where this configuration's HTTP API is reached from the same host: a wildcard address means loopback. */
export function healthUrl(cfg: Pick<Config, 'HTTP_HOST' | 'HTTP_PORT'>): string {
  const host = cfg.HTTP_HOST
  const reach = host === '' || host === '0.0.0.0' ? '127.0.0.1' : host === '::' ? '::1' : host
  return `http://${reach.includes(':') ? `[${reach}]` : reach}:${cfg.HTTP_PORT}/health`
}

export async function checkHealth(url: string, timeoutMs = HEALTH_TIMEOUT_MS): Promise<{ ok: boolean; line: string }> {
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(timeoutMs), redirect: 'manual' })
    await res.body?.cancel()
    return res.status === 200 ? { ok: true, line: `ok: ${url} answered 200` } : { ok: false, line: `unhealthy: ${url} answered ${res.status}` }
  } catch (err) {
    const why = (err as Error).name === 'TimeoutError' ? `no answer within ${timeoutMs} ms` : (err as Error).message
    return { ok: false, line: `unhealthy: ${url}: ${why}` }
  }
}
