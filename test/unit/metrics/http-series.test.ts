// The HTTP series are counted without prom-client on the request path, and exposed exactly as
// prom-client's own counter and histogram expose the same observations.
import { expect, test } from 'bun:test'
import { Counter, Histogram, Registry } from 'prom-client'
import { HttpSeries } from '../../../src/platform/metrics/http-series.ts'

const BOUNDS = [0.5, 1, 2, 5, 10, 25, 50, 100, 250, 1000]
const NAMES = { requests: 'voice_agent_http_requests_total', duration: 'voice_agent_http_request_duration_ms' }
const REQUESTS: [string, string, number, number][] = [
  ['GET', '/api/workspaces/:workspace_id', 200, 0.3],
  ['GET', '/api/workspaces/:workspace_id', 200, 1],
  ['GET', '/api/workspaces/:workspace_id', 404, 2.5],
  ['POST', '/api/agents', 201, 12],
  ['POST', '/api/agents', 422, 1500],
  ['GET', '/api/calls/:id', 200, 0.5],
  ['GET', '/a "quoted"\\route', 500, 1000],
]

test("the HTTP series read exactly as prom-client's counter and histogram of the same requests", async () => {
  const theirs = new Registry()
  const count = new Counter({ name: NAMES.requests, help: 'HTTP requests by method, route template and status', labelNames: ['method', 'route', 'status'], registers: [theirs] })
  const time = new Histogram({ name: NAMES.duration, help: 'HTTP request handling time, ms', labelNames: ['method', 'route'], buckets: BOUNDS, registers: [theirs] })
  const ours = new Registry()
  const series = new HttpSeries(ours, NAMES, BOUNDS)
  for (const [method, route, status, ms] of REQUESTS) {
    count.inc({ method, route, status: String(status) })
    time.observe({ method, route }, ms)
    series.record(method, route, status, ms)
  }
  const text = await ours.metrics()
  expect(text).toContain('voice_agent_http_request_duration_ms_bucket{le="+Inf",method="POST",route="/api/agents"} 2')
  expect(text).toBe(await theirs.metrics())
})

test('no request yet: both metrics are declared, with no series', async () => {
  const registry = new Registry()
  new HttpSeries(registry, NAMES, BOUNDS)
  expect(await registry.metrics()).toBe(
    `# HELP ${NAMES.requests} HTTP requests by method, route template and status\n# TYPE ${NAMES.requests} counter\n\n` +
      `# HELP ${NAMES.duration} HTTP request handling time, ms\n# TYPE ${NAMES.duration} histogram\n`,
  )
})
