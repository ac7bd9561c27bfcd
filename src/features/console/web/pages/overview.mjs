// Overview: calls in progress (polled), today's calls by outcome, voice-to-voice latency and cost.
import { get, qs } from '../api.mjs'
import { LineChart } from '../chart.mjs'
import { html, money, Problem, useData } from '../ui.mjs'
import { CallsTable } from './calls.mjs'

function percentile(sorted, p) {
  if (!sorted.length) return undefined
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]
}

/** Pure: today's figures from the ended calls of today. */
export function summarise(calls) {
  const outcomes = {}
  const cost = { llm: 0, stt: 0, tts: 0, telephony: 0, analysis: 0, total: 0 }
  const v2v = []
  for (const c of calls) {
    outcomes[c.outcome ?? c.status] = (outcomes[c.outcome ?? c.status] ?? 0) + 1
    for (const k of Object.keys(cost)) cost[k] += c.cost?.[k] ?? 0
    for (const t of c.metrics?.turns ?? []) if (typeof t.voiceToVoiceMs === 'number') v2v.push(t.voiceToVoiceMs)
  }
  v2v.sort((a, b) => a - b)
  // a call with no measured turn reports 0: it has no latency to plot
  const measured = (c) => c.metrics?.latencyP50 > 0 || (c.metrics?.turns ?? []).some((t) => typeof t.voiceToVoiceMs === 'number')
  const timed = calls.filter((c) => measured(c) && typeof c.metrics?.latencyP50 === 'number').sort((a, b) => Date.parse(a.endedAt ?? a.createdAt) - Date.parse(b.endedAt ?? b.createdAt))
  const overTime = {
    x: timed.map((c) => Date.parse(c.endedAt ?? c.createdAt) / 1000),
    p50: timed.map((c) => c.metrics.latencyP50),
    p99: timed.map((c) => c.metrics.latencyP99),
  }
  return { outcomes, cost, p50: percentile(v2v, 50), p99: percentile(v2v, 99), turns: v2v.length, overTime }
}

/** Pure: /ready's capacity as the overview shows it (null capacity or headroom: no ceiling). */
export function capacityFacts(c) {
  if (!c) return []
  const facts = [
    ['Capacity', c.capacity === null ? 'no fixed ceiling' : `${c.capacity} calls`],
    ['Calls up', `${c.callsUp}`],
    ['Headroom', c.headroom === null ? 'no fixed ceiling' : c.headroom === 0 ? 'none: new calls are refused (503)' : `${c.headroom} calls`],
  ]
  if (c.limitedBy) facts.push(['Limited by', c.limitedBy])
  return facts
}

export function OverviewPage() {
  const live = useData(() => get('/api/calls?status=in_progress&limit=50'), [], 2000)
  const midnight = new Date()
  midnight.setHours(0, 0, 0, 0)
  const today = useData(() => get(`/api/calls${qs({ createdAfter: midnight.toISOString(), status: 'ended', limit: 100 })}`), [], 10000)
  const s = today.data ? summarise(today.data.calls) : undefined
  // /ready names what works here but not for callers: a loopback PUBLIC_HOST, an unreachable provider
  const ready = useData(() => get('/ready'), [], 5000)
  const attention = [...(ready.data?.warnings ?? []), ...(ready.data?.problems ?? [])]
  return html`<h1>Overview</h1>
    ${attention.length ? html`<section aria-label="Needs attention" class="readiness bad"><h2>Needs attention</h2>
      <ul>${attention.map((w) => html`<li>${w}</li>`)}</ul></section>` : null}
    ${ready.data?.capacity ? html`<section aria-label="Capacity"><h2>Capacity</h2>
      <dl class="grid">${capacityFacts(ready.data.capacity).map(([k, v]) => html`<dt>${k}</dt><dd>${v}</dd>`)}</dl></section>` : null}
    <section aria-label="Live calls"><h2>Live calls</h2>
      <${Problem} error=${live.error} />
      <${CallsTable} caption="Calls in progress" calls=${live.data?.calls} />
    </section>
    <section aria-label="Today"><h2>Today${today.data?.nextCursor ? ' (latest 100 calls)' : ''}</h2>
      ${s ? html`
        <h3>Calls by outcome</h3>
        <dl class="grid">${Object.entries(s.outcomes).map(([k, v]) => html`<dt>${k}</dt><dd>${v}</dd>`)}</dl>
        ${Object.keys(s.outcomes).length ? null : html`<p class="empty">No call ended today.</p>`}
        <h3>Voice to voice</h3>
        <p>p50 ${s.p50 ?? '-'} ms, p99 ${s.p99 ?? '-'} ms over ${s.turns} caller turns</p>
        ${s.overTime.x.length ? html`<${LineChart} title="Voice to voice per call today (ms)" xLabel="call ended" yLabel="ms" time=${true} x=${s.overTime.x}
          series=${[{ label: 'p50', stroke: '#1a7f37', values: s.overTime.p50 }, { label: 'p99', stroke: '#a40e26', values: s.overTime.p99 }]}
          summary=${`${s.overTime.x.length} calls; latest p50 ${s.overTime.p50.at(-1)} ms, p99 ${s.overTime.p99.at(-1)} ms`} />` : html`<p class="empty">No call today has a measured latency yet.</p>`}
        <h3>Cost by component</h3>
        <dl class="grid">${Object.entries(s.cost).map(([k, v]) => html`<dt>${k}</dt><dd>${money(v)}</dd>`)}</dl>` : html`<p aria-busy="true">Loading…</p>`}
    </section>`
}
