// The HTTP request metrics, counted as plain numbers. prom-client hashes a label object on every
// inc() and observe(), even through a child from labels(): that was a fifth to a quarter of the
// request path's CPU samples under load (bench:http). Here a request costs one Map lookup; the
// series are handed to prom-client's registry, in its own value format, when Prometheus scrapes.
import type { Registry } from 'prom-client'

interface Series {
  labels: { method: string; route: string }
  /** Observations per bucket, not cumulative; the last slot counts those above every bound. */
  buckets: Float64Array
  sum: number
  count: number
  byStatus: Map<string, number>
}

interface Value {
  value: number
  labels?: Record<string, string | number>
  sharedLabels?: Record<string, string>
  metricName?: string
}

export class HttpSeries {
  private readonly series = new Map<string, Series>()

  constructor(
    registry: Registry,
    names: { requests: string; duration: string },
    private readonly bounds: readonly number[],
  ) {
    const metric = (name: string, help: string, type: 'counter' | 'histogram', values: () => Value[]) =>
      registry.registerMetric({ name, help, type, get: async () => ({ name, help, type, aggregator: 'sum', values: values() }) } as never)
    metric(names.requests, 'HTTP requests by method, route template and status', 'counter', () => this.requestValues())
    metric(names.duration, 'HTTP request handling time, ms', 'histogram', () => this.durationValues(names.duration))
  }

  record(method: string, route: string, status: number, ms: number): void {
    const key = `${method} ${route}`
    let s = this.series.get(key)
    if (!s) {
      s = { labels: { method, route }, buckets: new Float64Array(this.bounds.length + 1), sum: 0, count: 0, byStatus: new Map() }
      this.series.set(key, s)
    }
    let i = 0
    while (i < this.bounds.length && ms > this.bounds[i]!) i++
    s.buckets[i]!++
    s.sum += ms
    s.count++
    const code = String(status)
    s.byStatus.set(code, (s.byStatus.get(code) ?? 0) + 1)
  }

  private requestValues(): Value[] {
    return [...this.series.values()].flatMap((s) => [...s.byStatus].map(([status, value]) => ({ value, labels: { ...s.labels, status } })))
  }

  private durationValues(name: string): Value[] {
    return [...this.series.values()].flatMap((s) => {
      let acc = 0
      const buckets = this.bounds.map((le, i) => ({ value: (acc += s.buckets[i]!), labels: { le }, sharedLabels: s.labels, metricName: `${name}_bucket` }))
      return [
        ...buckets,
        { value: s.count, labels: { le: '+Inf' }, sharedLabels: s.labels, metricName: `${name}_bucket` },
        { value: s.sum, sharedLabels: s.labels, metricName: `${name}_sum` },
        { value: s.count, sharedLabels: s.labels, metricName: `${name}_count` },
      ]
    })
  }
}
