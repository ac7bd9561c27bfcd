import http from 'node:http'
import https from 'node:https'
import type { LookupFunction } from 'node:net'
import { isIP } from 'node:net'
import { dnsResolver, type Resolver, resolveTarget, type UrlPolicy } from './url-guard.ts'

export interface GuardedFetchInit {
  method?: string
  headers?: Record<string, string>
  body?: string | Uint8Array
}

export interface GuardedFetchOptions {
  /** The same policy as the save-time check (WEBHOOK_ALLOW_HTTP / WEBHOOK_ALLOW_PRIVATE). */
  policy: UrlPolicy
  /** Limit for the whole exchange, name resolution included (default 10 s). */
  timeoutMs?: number
  /** Bytes of the response body kept; the rest is not read (default 1 MiB). */
  maxResponseBytes?: number
  signal?: AbortSignal
  /** Name resolution; injectable for tests. */
  resolve?: Resolver
  /** Extra trusted certificate authority (PEM), e.g. a test server's own certificate. */
  ca?: string
}

export interface GuardedResponse {
  status: number
  /** Lower-case names; repeated headers joined with ", ". */
  headers: Record<string, string>
  /** The body as UTF-8 text, at most maxResponseBytes of it. */
  body: string
  truncated: boolean
  /** The address the connection went to (the one that was checked). */
  address: string
}

/** The target was refused by the address rules; nothing was sent. */
export class OutboundRefusedError extends Error {}

/**
 * The appliance's one way to send an HTTP request to a URL a user supplied (http tools, agent
 * and post-call webhooks). It applies the save-time rules again (scheme, port 0, every address
 * the host resolves to through classifyAddress), resolves the host ONCE and connects to an
 * address it checked, so a DNS answer that changes between check and connect (rebinding)
 * cannot redirect the request. The Host header and TLS SNI and certificate verification still
 * use the host name. Redirects are never followed (a 3xx is returned as it is).
 *
 * Throws OutboundRefusedError when the target is refused, Error on timeout or network failure.
 *
 *   const res = await guardedFetch(hook, { method: 'POST', headers, body }, { policy, timeoutMs: 5000 })
 */
export async function guardedFetch(url: string | URL, init: GuardedFetchInit, options: GuardedFetchOptions): Promise<GuardedResponse> {
  const timeoutMs = options.timeoutMs ?? 10_000
  const signals = [AbortSignal.timeout(timeoutMs), ...(options.signal ? [options.signal] : [])]
  const signal = AbortSignal.any(signals)
  const verdict = await abortable(resolveTarget(url, options.policy, options.resolve ?? dnsResolver), signal)
  if (!verdict.ok) throw new OutboundRefusedError(verdict.reason)
  const address = verdict.addresses[0] as string
  return request(verdict.url, address, init, options, signal)
}

function request(url: URL, address: string, init: GuardedFetchInit, options: GuardedFetchOptions, signal: AbortSignal): Promise<GuardedResponse> {
  const max = options.maxResponseBytes ?? 1024 * 1024
  const family = isIP(address)
  // every lookup the client makes answers with the checked address: no second DNS query happens
  const pinned: LookupFunction = (_host, opts, cb) => {
    if ((opts as { all?: boolean }).all) (cb as (e: null, a: { address: string; family: number }[]) => void)(null, [{ address, family }])
    else cb(null, address, family)
  }
  const body = init.body === undefined ? undefined : typeof init.body === 'string' ? Buffer.from(init.body) : init.body
  const headers: Record<string, string> = { ...init.headers }
  if (body && !Object.keys(headers).some((k) => k.toLowerCase() === 'content-length')) headers['content-length'] = String(body.byteLength)
  const client = url.protocol === 'https:' ? https : http
  return new Promise((resolve, reject) => {
    const req = client.request(
      {
        protocol: url.protocol,
        host: url.hostname.replace(/^\[|\]$/g, ''),
        port: url.port || undefined,
        path: `${url.pathname}${url.search}`,
        method: init.method ?? 'GET',
        headers,
        lookup: pinned,
        agent: false,
        ...(options.ca ? { ca: options.ca } : {}),
      },
      (res) => {
        const chunks: Buffer[] = []
        let size = 0
        let truncated = false
        const finish = () => {
          signal.removeEventListener('abort', onAbort)
          const out: Record<string, string> = {}
          for (const [k, v] of Object.entries(res.headers)) if (v !== undefined) out[k] = Array.isArray(v) ? v.join(', ') : v
          resolve({ status: res.statusCode ?? 0, headers: out, body: Buffer.concat(chunks).toString('utf8'), truncated, address })
        }
        res.on('data', (chunk: Buffer) => {
          if (truncated) return
          const room = max - size
          if (chunk.length > room) {
            chunks.push(chunk.subarray(0, room))
            size = max
            truncated = true
            req.destroy()
            finish()
            return
          }
          chunks.push(chunk)
          size += chunk.length
        })
        res.on('end', () => truncated || finish())
        res.on('error', (err) => truncated || fail(err))
      },
    )
    const fail = (err: Error) => {
      signal.removeEventListener('abort', onAbort)
      reject(err)
    }
    const onAbort = () => req.destroy(signal.reason instanceof Error && signal.reason.name !== 'TimeoutError' ? signal.reason : new Error('timed out'))
    if (signal.aborted) return onAbort()
    signal.addEventListener('abort', onAbort)
    req.on('error', fail)
    req.end(body)
  })
}

function abortable<T>(p: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(new Error('timed out'))
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(new Error('timed out'))
    signal.addEventListener('abort', onAbort, { once: true })
    p.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort))
  })
}
