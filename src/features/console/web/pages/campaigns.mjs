// Campaigns: create one from a CSV (the appliance previews the file with the parser its upload
// uses; each column is mapped to `to`, a variable or nothing), the list, and one campaign's live
// counters, contacts and pause / resume / cancel.
import { useRef, useState } from 'preact/hooks'
import { get, post, postFile, qs } from '../api.mjs'
import { Field, html, Problem, Status, Table, useAction, useData, when } from '../ui.mjs'

const variables = (v) => Object.entries(v).map(([k, val]) => `${k}=${val}`).join(', ')

/** The zone(s) a contact's calling window is read in, and where they come from (its own, its number's, the job's). */
const zones = (c) => `${c.timezone ?? (c.timezones.length ? `all of ${c.timezones.join(', ')}` : 'none known')} (${c.timezoneSource})`

/** The next attempt in the contact's local time ("2026-12-02 08:00 America/Los_Angeles"), else in the viewer's. */
const nextAttempt = (c) => {
  if (!c.nextAttemptAt) return ''
  if (!c.nextAttemptLocal) return when(c.nextAttemptAt)
  return `${c.nextAttemptLocal.slice(0, 16).replace('T', ' ')} ${c.timezone ?? `UTC${c.nextAttemptLocal.slice(-6)}`}`
}

/** The file, the mapping of its columns, and the appliance's preview of both (the latest asked for wins). */
function useCsvPreview() {
  const [state, setState] = useState({})
  const asked = useRef(0)
  const show = async (file, columns) => {
    const n = ++asked.current
    setState((s) => ({ ...s, file, columns }))
    try {
      const preview = await postFile(`/api/outbound/jobs/preview${qs({ columns: columns && JSON.stringify(columns) })}`, file, 'text/csv')
      if (n === asked.current) setState({ file, columns: columns ?? preview.suggestedColumns, preview })
      return preview
    } catch (error) {
      if (n === asked.current) setState({ file, columns, error })
    }
  }
  const load = async (file) => {
    const first = await show(file)
    // start from the suggested mapping, previewed as such unless it is the header itself
    if (first && JSON.stringify(first.suggestedColumns) !== JSON.stringify(first.columns)) await show(file, first.suggestedColumns)
  }
  // a preview sends the whole file again: asked once typing pauses
  const typing = useRef()
  const remap = (i, target) => {
    const columns = state.columns.map((c, j) => (j === i ? target : c))
    setState((s) => ({ ...s, columns }))
    clearTimeout(typing.current)
    typing.current = setTimeout(() => show(state.file, columns), 300)
  }
  return { ...state, load, remap }
}

function CreateCampaign({ onCreated }) {
  const agents = useData(() => get('/api/agents?limit=100'))
  const numbers = useData(() => get('/api/phone-numbers?limit=100'))
  const [form, setForm] = useState({ name: '', agentId: '', phoneNumberId: '', maxConcurrent: '1', windowStart: '08:00', windowEnd: '21:00' })
  const csv = useCsvPreview()
  const { error, busy, run, fieldError } = useAction()
  const set = (k) => (e) => setForm({ ...form, [k]: e.target.value })
  const preview = csv.preview
  const submit = (e) => {
    e.preventDefault()
    run(async () => {
      const settings = { maxConcurrent: Number(form.maxConcurrent), callingWindow: { start: form.windowStart, end: form.windowEnd } }
      const query = { agentId: form.agentId, phoneNumberId: form.phoneNumberId, name: form.name, settings: JSON.stringify(settings), columns: JSON.stringify(csv.columns) }
      const r = await postFile(`/api/outbound/jobs${qs(query)}`, csv.file, 'text/csv')
      onCreated(r.job)
    })
  }
  const issues = [...(preview?.errors ?? []), ...Object.entries(error?.fields ?? {}).map(([path, message]) => ({ path, message }))]
  const fileIssues = issues.filter((i) => i.path.startsWith('contacts') || i.path === 'columns')
  const columnIssue = (i) => issues.find((x) => x.path === `columns[${i}]`)?.message
  const fileError = csv.error?.message ?? (fileIssues.map((i) => `${i.path}: ${i.message}`).join('; ') || undefined)
  return html`<form class="card" onSubmit=${submit} aria-label="Create a campaign">
    <h2>Create a campaign</h2>
    <${Field} label="Name" name="name" value=${form.name} onInput=${set('name')} error=${fieldError('name')} />
    <${Field} label="Agent" name="agentId" as="select" value=${form.agentId} onChange=${set('agentId')} error=${fieldError('agentId')}>
      <option value="">choose…</option>${(agents.data?.agents ?? []).map((a) => html`<option value=${a.id}>${a.name}</option>`)}
    <//>
    <${Field} label="Caller ID number" name="phoneNumberId" as="select" value=${form.phoneNumberId} onChange=${set('phoneNumberId')} error=${fieldError('phoneNumberId')}>
      <option value="">choose…</option>${(numbers.data?.phoneNumbers ?? []).map((n) => html`<option value=${n.id}>${n.e164}</option>`)}
    <//>
    <${Field} label="Calls at once" name="maxConcurrent" type="number" min="1" max="10" value=${form.maxConcurrent} onInput=${set('maxConcurrent')} error=${fieldError('settings.maxConcurrent')} />
    <${Field} label="Calling window start (HH:MM, contact's local time)" name="windowStart" value=${form.windowStart} onInput=${set('windowStart')} error=${fieldError('settings.callingWindow.start') ?? fieldError('settings.callingWindow')} />
    <${Field} label="Calling window end (HH:MM, up to 24:00)" name="windowEnd" value=${form.windowEnd} onInput=${set('windowEnd')} error=${fieldError('settings.callingWindow.end')} />
    <${Field} label="Contacts (CSV file with a header line)" name="csv" type="file" accept=".csv,text/csv" onChange=${(e) => e.target.files[0] && csv.load(e.target.files[0])} error=${fileError} />
    ${preview && csv.columns ? html`<fieldset><legend>Column mapping</legend>
      ${preview.header.map((h, i) => html`<${Field} label=${`Column "${h}"`} name=${`map-${i}`} value=${csv.columns[i]} list="map-targets" error=${columnIssue(i)}
        onInput=${(e) => csv.remap(i, e.target.value)} />`)}
      <datalist id="map-targets"><option value="to" /><option value="timezone" /></datalist>
      <p class="hint">"to" is the number to call; "timezone" the contact's own time zone (America/Chicago), else its number's is used; any other name becomes a {{variable}}; empty leaves the column out.</p>
    </fieldset>
    <${Table} caption=${`Preview: ${preview.rowCount} contacts`} rows=${preview.rows.map((r) => ({ ...r, id: r.line }))}
      columns=${[{ label: 'Line', cell: (r) => r.line }, { label: 'To', cell: (r) => r.to ?? '' }, { label: 'Time zone', cell: (r) => r.timezone ?? '' }, { label: 'Variables', cell: (r) => variables(r.dynamicVariables) }]} />` : null}
    ${error && !Object.keys(error.fields).length ? html`<${Problem} error=${error} />` : null}
    <button type="submit" disabled=${busy || !preview || preview.errors.length > 0}>Start campaign</button>
  </form>`
}

export function CampaignsPage() {
  const { data, error } = useData(() => get('/api/outbound/jobs?limit=100'), [], 3000)
  return html`<h1>Campaigns</h1>
    <${Problem} error=${error} />
    <${Table} caption="Campaigns" rows=${data?.jobs} empty="No campaign yet."
      columns=${[
        { label: 'Name', cell: (j) => html`<a href=${`#/campaigns/${j.id}`}>${j.name || j.id}</a>` },
        { label: 'Status', cell: (j) => html`<${Status} value=${j.status} />` },
        { label: 'Done', cell: (j) => `${j.completedContacts} + ${j.failedContacts} failed / ${j.totalContacts}` },
        { label: 'Created', cell: (j) => when(j.createdAt) },
      ]} />
    <${CreateCampaign} onCreated=${(job) => (location.hash = `#/campaigns/${job.id}`)} />`
}

export function CampaignPage({ id }) {
  const job = useData(() => get(`/api/outbound/jobs/${id}`), [id], 1500)
  const contacts = useData(() => get(`/api/outbound/jobs/${id}/contacts?limit=100`), [id], 3000)
  const { error, run } = useAction()
  const j = job.data?.job
  if (!j) return html`<h1>Campaign</h1><${Problem} error=${job.error} />`
  const act = (verb) => () => run(async () => {
    await post(`/api/outbound/jobs/${id}/${verb}`)
    job.reload()
  })
  const open = !['completed', 'cancelled', 'failed'].includes(j.status)
  return html`<h1>Campaign ${j.name || j.id}</h1>
    <dl class="grid counters" aria-live="polite">
      <dt>status</dt><dd data-counter="status"><${Status} value=${j.status} /></dd>
      <dt>contacts</dt><dd data-counter="total">${j.totalContacts}</dd>
      <dt>completed</dt><dd data-counter="completed">${j.completedContacts}</dd>
      <dt>failed</dt><dd data-counter="failed">${j.failedContacts}</dd>
    </dl>
    <div class="actions">
      <button onClick=${act('pause')} disabled=${!open || j.status === 'paused'}>Pause</button>
      <button onClick=${act('resume')} disabled=${j.status !== 'paused'}>Resume</button>
      <button class="danger" onClick=${act('cancel')} disabled=${!open}>Cancel</button>
    </div>
    <${Problem} error=${error} />
    <${Table} caption="Contacts" error=${contacts.error} rows=${contacts.data?.contacts}
      columns=${[
        { label: 'To', cell: (c) => c.to },
        { label: 'Variables', cell: (c) => variables(c.dynamicVariables) },
        { label: 'Status', cell: (c) => html`<${Status} value=${c.status} />` },
        { label: 'Attempts', cell: (c) => c.attempts },
        { label: 'Last outcome', cell: (c) => c.lastOutcome ?? '' },
        { label: 'Next attempt', cell: nextAttempt },
        { label: 'Time zone', cell: zones },
        { label: 'Calls', cell: (c) => c.callIds.map((cid) => html`<a href=${`#/calls/${cid}`}>${cid}</a> `) },
      ]} />`
}
