// Calls: the list with its filters; it refreshes itself so calls in progress show up live.
import { useState } from 'preact/hooks'
import { get, qs } from '../api.mjs'
import { Field, html, Problem, Status, Table, useData, when } from '../ui.mjs'

const OUTCOMES = ['completed', 'transferred', 'busy', 'no_answer', 'not_found', 'declined', 'cancelled', 'failed', 'silence_timeout', 'max_duration', 'provider_error', 'shutdown']

const digits = (s) => s.replace(/[^\d+]/g, '')

/**
 * Pure: who called whom, by name. A browser or stream call is the member (its `from` is their
 * user id) calling the agent (its `to` is the agent id); a phone call shows our number's label
 * beside its E.164 unless the label is that number written out. An id stands in for a name
 * the API no longer has.
 */
export function callParties(c) {
  if (c.type === 'web' || c.type === 'stream') return { from: c.memberEmail ?? c.from, to: c.agentName ?? c.to }
  const label = c.phoneNumberLabel
  const ours = (e164) => (label && digits(label) !== digits(e164) ? `${label} (${e164})` : e164)
  return c.type === 'outbound' ? { from: ours(c.from), to: c.to } : { from: c.from, to: ours(c.to) }
}

export function CallsTable({ calls, caption = 'Calls' }) {
  return html`<${Table} caption=${caption} rows=${calls} empty="No call matches."
    columns=${[
      { label: 'Call', cell: (c) => {
        const p = callParties(c)
        return html`<a href=${`#/calls/${c.id}`}>${c.type} ${p.from} → ${p.to}</a>${c.testDraft ? html` <span class="status status-draft">draft test</span>` : null}`
      } },
      { label: 'Agent', cell: (c) => c.agentName ?? '' },
      { label: 'Status', cell: (c) => html`<${Status} value=${c.status} />` },
      { label: 'Outcome', cell: (c) => c.outcome ?? '' },
      { label: 'Duration', cell: (c) => `${c.duration ?? 0} s` },
      { label: 'Labels', cell: (c) => (c.labels ?? []).join(', ') },
      { label: 'Started', cell: (c) => when(c.startedAt ?? c.createdAt) },
    ]} />`
}

export function CallsPage() {
  const [f, setF] = useState({ agentId: '', phoneNumberId: '', status: '', outcome: '', label: '', sentiment: '', createdAfter: '', createdBefore: '' })
  const agents = useData(() => get('/api/agents?limit=100'))
  const numbers = useData(() => get('/api/phone-numbers?limit=100'))
  const query = { ...f, createdAfter: f.createdAfter && new Date(f.createdAfter).toISOString(), createdBefore: f.createdBefore && new Date(f.createdBefore).toISOString(), limit: 50 }
  const calls = useData(() => get(`/api/calls${qs(query)}`), [JSON.stringify(query)], 2000)
  const set = (k) => (e) => setF({ ...f, [k]: e.target.value })
  return html`<h1>Calls</h1>
    <form class="filters" aria-label="Filter calls" onSubmit=${(e) => e.preventDefault()}>
      <${Field} label="Agent" name="agentId" as="select" value=${f.agentId} onChange=${set('agentId')}>
        <option value="">any</option>${(agents.data?.agents ?? []).map((a) => html`<option value=${a.id}>${a.name}</option>`)}
      <//>
      <${Field} label="Number" name="phoneNumberId" as="select" value=${f.phoneNumberId} onChange=${set('phoneNumberId')}>
        <option value="">any</option>${(numbers.data?.phoneNumbers ?? []).map((n) => html`<option value=${n.id}>${n.e164}</option>`)}
      <//>
      <${Field} label="Status" name="status" as="select" value=${f.status} onChange=${set('status')}>
        <option value="">any</option>${['queued', 'ringing', 'in_progress', 'ended'].map((s) => html`<option>${s}</option>`)}
      <//>
      <${Field} label="Outcome" name="outcome" as="select" value=${f.outcome} onChange=${set('outcome')}>
        <option value="">any</option>${OUTCOMES.map((s) => html`<option>${s}</option>`)}
      <//>
      <${Field} label="Label" name="label" value=${f.label} onInput=${set('label')} />
      <${Field} label="Sentiment" name="sentiment" as="select" value=${f.sentiment} onChange=${set('sentiment')}>
        <option value="">any</option>${['positive', 'neutral', 'negative'].map((s) => html`<option>${s}</option>`)}
      <//>
      <${Field} label="From" name="createdAfter" type="datetime-local" value=${f.createdAfter} onInput=${set('createdAfter')} />
      <${Field} label="To" name="createdBefore" type="datetime-local" value=${f.createdBefore} onInput=${set('createdBefore')} />
    </form>
    <${Problem} error=${calls.error} />
    <${CallsTable} calls=${calls.data?.calls} />`
}
