// GET /metrics in the Prometheus text format; the instruments live in metrics.ts.
import { timingSafeEqual } from 'node:crypto'
import { Elysia } from 'elysia'
import { AppError } from '../errors.ts'

import { isLoopback } from './loopback.ts'
import type { Metrics } from './metrics.ts'


function tokenMatches(given: string, expected: string): boolean {
  const a = Buffer.from(given)
  const b = Buffer.from(expected)
  return a.length === b.length && timingSafeEqual(a, b)
}

/**
 * With METRICS_TOKEN set, a scraper sends `Authorization: Bearer <token>` from anywhere;
 * without it, only loopback clients are served (a Prometheus or agent on the same host).
 */
export function metricsController(metrics: Metrics, token: string) {
  return new Elysia().get(
    '/metrics',
    async ({ request, server, set }) => {
      if (token) {
        const auth = request.headers.get('authorization') ?? ''
        if (!/^bearer /i.test(auth) || !tokenMatches(auth.slice(7), token)) { // the scheme is case-insensitive (RFC 9110)
          throw new AppError(401, 'unauthorized', 'send the METRICS_TOKEN as a Bearer token', undefined, { 'www-authenticate': 'Bearer' })
        }
      } else {
        const ip = server?.requestIP(request)?.address ?? ''
        if (!isLoopback(ip)) throw new AppError(403, 'forbidden', 'metrics are served to loopback clients only unless METRICS_TOKEN is set')
      }
      set.headers['content-type'] = metrics.contentType
      return metrics.text()
    },
    {
      detail: {
        summary: 'Prometheus metrics',
        description:
          'Calls, SIP, RTP, voice latencies, provider errors, HTTP, event-loop lag and queue depths in the Prometheus text format. Served to loopback clients, or to any client with `Authorization: Bearer <METRICS_TOKEN>` when that key is set.',
        tags: ['Health'],
      },
    },
  )
}

/** Feeds the SIP user agent's messages to the metrics; a response's method comes from its CSeq. */
