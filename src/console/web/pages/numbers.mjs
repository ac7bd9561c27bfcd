// Numbers: connect a SIP trunk number, assign the inbound and outbound agents, see the status.
import { useState } from 'preact/hooks'
import { get, patch, post, qs, workspaceId } from '../api.mjs'
import { Field, html, Problem, Status, Table, useAction, useData } from '../ui.mjs'

function Connect({ onDone }) {
  const [form, setForm] = useState({ e164: '', label: '', sipTerminationUri: '', sipOutboundTransport: 'udp', sipUsername: '', sipPassword: '' })
  const { error, busy, run, fieldError } = useAction()
  const set = (k) => (e) => setForm({ ...form, [k]: e.target.value })
  const submit = (e) => {
    e.preventDefault()
    run(async () => {
      const body = { ...form, provider: 'sip' }
      for (const k of ['label', 'sipUsername', 'sipPassword']) if (!body[k]) delete body[k]
      await post('/api/phone-numbers', body)
      setForm({ ...form, e164: '', label: '' })
      onDone()
    })
  }
  return html`<form class="card" onSubmit=${submit} aria-label="Connect a SIP trunk number">
    <h2>Connect a SIP trunk number</h2>
    <${Field} label="Number (E.164)" name="e164" placeholder="+14155550100" value=${form.e164} onInput=${set('e164')} error=${fieldError('e164')} />
    <${Field} label="Label" name="label" value=${form.label} onInput=${set('label')} error=${fieldError('label')} />
    <${Field} label="Trunk URI" name="sipTerminationUri" placeholder="sip:pbx.example.com:5060" value=${form.sipTerminationUri} onInput=${set('sipTerminationUri')} error=${fieldError('sipTerminationUri')} />
    <${Field} label="Transport" name="sipOutboundTransport" as="select" value=${form.sipOutboundTransport} onChange=${set('sipOutboundTransport')} error=${fieldError('sipOutboundTransport')}>
      <option>udp</option><option>tcp</option><option>tls</option>
    <//>
    <${Field} label="SIP username (optional)" name="sipUsername" autocomplete="off" value=${form.sipUsername} onInput=${set('sipUsername')} error=${fieldError('sipUsername')} />
    <${Field} label="SIP password (optional)" name="sipPassword" type="password" autocomplete="new-password" value=${form.sipPassword} onInput=${set('sipPassword')} error=${fieldError('sipPassword')} />
    ${error && !Object.keys(error.fields).length ? html`<${Problem} error=${error} />` : null}
    <button type="submit" disabled=${busy}>Connect number</button>
  </form>`
}

function AgentSelect({ number, field, agents, onDone }) {
  const { error, run } = useAction()
  const change = (e) => {
    const agentId = e.target.value || null // read now: the controlled select is re-rendered before the request
    return run(async () => {
      await patch(`/api/phone-numbers/${number.id}`, { [field]: agentId })
      onDone()
    })
  }
  const label = `${field === 'inboundAgentId' ? 'Inbound' : 'Outbound'} agent of ${number.e164}`
  return html`<select aria-label=${label} value=${number[field] ?? ''} onChange=${change}>
      <option value="">none</option>
      ${agents.map((a) => html`<option value=${a.id}>${a.name}</option>`)}
    </select>${error ? html`<p class="field-error" role="alert">${error.message}</p>` : null}`
}

function BuyFromCarrier({ onDone }) {
  const [q, setQ] = useState({ country: 'US', area_code: '' })
  const [found, setFound] = useState()
  const search = useAction()
  const buy = useAction()
  const set = (k) => (e) => setQ({ ...q, [k]: e.target.value })
  const base = async () => `/api/workspaces/${await workspaceId()}/carrier`
  const submit = (e) => {
    e.preventDefault()
    search.run(async () => setFound((await get(`${await base()}/available-numbers${qs({ ...q, limit: 20 })}`)).numbers))
  }
  const purchase = (n) => buy.run(async () => {
    if (!confirm(`Buy ${n.phoneNumber} through the carrier?`)) return
    await post(`${await base()}/buy-number`, { phoneNumber: n.phoneNumber })
    setFound(found.filter((f) => f !== n))
    onDone()
  })
  return html`<form class="card" onSubmit=${submit} aria-label="Search and buy a number">
    <h2>Search and buy through the carrier</h2>
    <div class="inline">
      <${Field} label="Country (ISO code)" name="country" value=${q.country} onInput=${set('country')} error=${search.fieldError('country')} />
      <${Field} label="Area code" name="area_code" value=${q.area_code} onInput=${set('area_code')} error=${search.fieldError('area_code')} />
      <button type="submit" disabled=${search.busy}>Search</button>
    </div>
    ${search.error && !Object.keys(search.error.fields).length ? html`<${Problem} error=${search.error} />` : null}
    <${Problem} error=${buy.error} />
    ${found ? html`<${Table} caption="Available numbers" rows=${found.map((n) => ({ ...n, id: n.phoneNumber }))} empty="The carrier has no number for this search."
      columns=${[
        { label: 'Number', cell: (n) => n.friendlyName },
        { label: 'Where', cell: (n) => [n.locality, n.region, n.isoCountry].filter(Boolean).join(', ') },
        { label: 'Voice', cell: (n) => (n.capabilities?.voice ? 'yes' : 'no') },
        { label: '', cell: (n) => html`<button aria-label=${`Buy ${n.phoneNumber}`} onClick=${(e) => { e.preventDefault(); purchase(n) }}>Buy</button>` },
      ]} />` : null}
  </form>`
}

export function NumbersPage() {
  const numbers = useData(() => get('/api/phone-numbers?limit=100'))
  const agents = useData(() => get('/api/agents?limit=100'))
  const list = agents.data?.agents ?? []
  return html`<h1>Numbers</h1>
    <${Problem} error=${numbers.error} />
    <${Table} caption="Phone numbers" rows=${numbers.data?.phoneNumbers} empty="No number yet: connect a SIP trunk below."
      columns=${[
        { label: 'Number', cell: (n) => html`${n.e164}${n.label ? html` <small>${n.label}</small>` : null}` },
        { label: 'Source', cell: (n) => n.source },
        { label: 'Status', cell: (n) => html`<${Status} value=${n.status} />${n.statusDetail ? html`<br /><small>${n.statusDetail}</small>` : null}` },
        { label: 'Inbound agent', cell: (n) => html`<${AgentSelect} number=${n} field="inboundAgentId" agents=${list} onDone=${numbers.reload} />` },
        { label: 'Outbound agent', cell: (n) => html`<${AgentSelect} number=${n} field="outboundAgentId" agents=${list} onDone=${numbers.reload} />` },
      ]} />
    <${Connect} onDone=${numbers.reload} />
    <${BuyFromCarrier} onDone=${numbers.reload} />`
}
