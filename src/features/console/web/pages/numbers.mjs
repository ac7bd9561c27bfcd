// Numbers: connect a SIP trunk number, assign the inbound and outbound agents, see the status.
import { useState } from 'preact/hooks'
import { del, get, patch, post, qs, workspaceId } from '../api.mjs'
import { Field, html, Problem, Status, Table, useAction, useData } from '../ui.mjs'

const ENCRYPTION = [
  ['none', 'none: plain RTP'],
  ['optional', 'optional: SRTP offered, plain accepted'],
  ['required', 'required: SRTP only (needs tls)'],
]

/** A sip number's SRTP policy and REGISTER setting, as POST and PATCH take them. */
function TrunkMediaFields({ mediaEncryption, sipRegister, onMediaEncryption, onSipRegister, fieldError, withDefault = false }) {
  return html`<${Field} label="Media encryption (SRTP)" name="mediaEncryption" as="select" value=${mediaEncryption} onChange=${(e) => onMediaEncryption(e.target.value)} error=${fieldError('mediaEncryption')}>
      ${withDefault ? html`<option value="">the appliance's default (MEDIA_ENCRYPTION)</option>` : null}
      ${ENCRYPTION.map(([v, l]) => html`<option value=${v}>${l}</option>`)}
    <//>
    <label class="check"><input type="checkbox" name="sipRegister" checked=${sipRegister} onChange=${(e) => onSipRegister(e.target.checked)} />
      Register with the trunk (a REGISTER binding kept fresh; a failure shows in the status)</label>
    ${fieldError('sipRegister') ? html`<p class="field-error" role="alert">${fieldError('sipRegister')}</p>` : null}`
}

function Connect({ onDone }) {
  const [form, setForm] = useState({ e164: '', label: '', sipTerminationUri: '', sipOutboundTransport: 'udp', sipUsername: '', sipPassword: '', mediaEncryption: '', sipRegister: false })
  const { error, busy, run, fieldError } = useAction()
  const set = (k) => (e) => setForm({ ...form, [k]: e.target.value })
  const setValue = (k) => (v) => setForm((f) => ({ ...f, [k]: v }))
  const submit = (e) => {
    e.preventDefault()
    run(async () => {
      const body = { ...form, provider: 'sip' }
      for (const k of ['label', 'sipUsername', 'sipPassword', 'mediaEncryption']) if (!body[k]) delete body[k]
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
    <${TrunkMediaFields} withDefault=${true} mediaEncryption=${form.mediaEncryption} sipRegister=${form.sipRegister} fieldError=${fieldError}
      onMediaEncryption=${setValue('mediaEncryption')} onSipRegister=${setValue('sipRegister')} />
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

/** Label, trunk and credentials of one number (the password is never shown: blank keeps it), and release. */
function EditNumber({ number, onDone, onClose }) {
  const sip = number.provider === 'sip'
  const [form, setForm] = useState({
    label: number.label ?? '', sipTerminationUri: number.sipTerminationUri ?? '', sipOutboundTransport: number.sipOutboundTransport, sipUsername: number.sipUsername ?? '', sipPassword: '',
    clearCredentials: false, mediaEncryption: number.mediaEncryption, sipRegister: number.sipRegister,
  })
  const [releasing, setReleasing] = useState(false)
  const { error, busy, run, fieldError } = useAction()
  const set = (k) => (e) => setForm({ ...form, [k]: e.target.type === 'checkbox' ? e.target.checked : e.target.value })
  const setValue = (k) => (v) => setForm((f) => ({ ...f, [k]: v }))
  const submit = (e) => {
    e.preventDefault()
    run(async () => {
      const body = { label: form.label }
      if (sip) {
        // both always: the API checks the pair (required needs tls) whichever of them changed
        Object.assign(body, { sipTerminationUri: form.sipTerminationUri, sipOutboundTransport: form.sipOutboundTransport, mediaEncryption: form.mediaEncryption, sipRegister: form.sipRegister })
        if (form.clearCredentials) Object.assign(body, { sipUsername: null, sipPassword: null })
        else {
          if (form.sipUsername !== (number.sipUsername ?? '')) body.sipUsername = form.sipUsername || null
          if (form.sipPassword) body.sipPassword = form.sipPassword
        }
      }
      await patch(`/api/phone-numbers/${number.id}`, body)
      onDone()
      onClose()
    })
  }
  const release = () => run(async () => {
    await del(`/api/phone-numbers/${number.id}`)
    onDone()
    onClose()
  })
  return html`<form class="card" onSubmit=${submit} aria-label=${`Edit ${number.e164}`}>
    <h2>Edit ${number.e164}</h2>
    <${Field} label="Label" name="label" value=${form.label} onInput=${set('label')} error=${fieldError('label')} />
    ${sip ? html`
      <${Field} label="Trunk URI" name="sipTerminationUri" value=${form.sipTerminationUri} onInput=${set('sipTerminationUri')} error=${fieldError('sipTerminationUri')} />
      <${Field} label="Transport" name="sipOutboundTransport" as="select" value=${form.sipOutboundTransport} onChange=${set('sipOutboundTransport')} error=${fieldError('sipOutboundTransport')}>
        <option>udp</option><option>tcp</option><option>tls</option>
      <//>
      <${Field} label="SIP username" name="sipUsername" autocomplete="off" value=${form.sipUsername} disabled=${form.clearCredentials} onInput=${set('sipUsername')} error=${fieldError('sipUsername')} />
      <${Field} label=${number.hasSipPassword ? 'New SIP password (blank keeps the current one)' : 'SIP password'} name="sipPassword" type="password" autocomplete="new-password"
        value=${form.sipPassword} disabled=${form.clearCredentials} onInput=${set('sipPassword')} error=${fieldError('sipPassword')} />
      ${number.sipUsername || number.hasSipPassword ? html`<label class="check"><input type="checkbox" name="clearCredentials" checked=${form.clearCredentials} onChange=${set('clearCredentials')} /> Remove the username and password</label>` : null}
      <${TrunkMediaFields} mediaEncryption=${form.mediaEncryption} sipRegister=${form.sipRegister} fieldError=${fieldError}
        onMediaEncryption=${setValue('mediaEncryption')} onSipRegister=${setValue('sipRegister')} />` : null}
    ${error && !Object.keys(error.fields ?? {}).length ? html`<${Problem} error=${error} />` : null}
    <div class="actions">
      <button type="submit" disabled=${busy}>Save number</button>
      <button type="button" onClick=${onClose}>Close</button>
      <button type="button" class="danger" onClick=${() => setReleasing(true)} disabled=${busy}>Release number</button>
    </div>
    ${releasing ? html`<div class="confirm" role="alertdialog" aria-label="Release the number">
      <p>Release ${number.e164}? Calls to it are refused from now on${number.source === 'purchased' ? ', and the number goes back to the carrier' : ''}.</p>
      <button type="button" class="danger" onClick=${release} disabled=${busy}>Release ${number.e164}</button>
      <button type="button" onClick=${() => setReleasing(false)}>Keep it</button>
    </div>` : null}
  </form>`
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
  const [editing, setEditing] = useState()
  const edited = numbers.data?.phoneNumbers?.find((n) => n.id === editing)
  return html`<h1>Numbers</h1>
    <${Problem} error=${numbers.error} />
    <${Table} caption="Phone numbers" rows=${numbers.data?.phoneNumbers} empty="No number yet: connect a SIP trunk below."
      columns=${[
        { label: 'Number', cell: (n) => html`${n.e164}${n.label ? html` <small>${n.label}</small>` : null}` },
        { label: 'Source', cell: (n) => n.source },
        // an agent that cannot converse (no LLM, or its LLM unreachable) is not the green "active"
        { label: 'Status', cell: (n) => html`${n.needsAttention ? html`<span class="status status-attention">needs attention</span>` : html`<${Status} value=${n.status} />`}${[n.statusReason, n.statusDetail].filter(Boolean).map((why) => html`<br /><small>${why}</small>`)}` },
        { label: 'Trunk', cell: (n) => (n.provider === 'sip' ? `${n.sipOutboundTransport} · SRTP ${n.mediaEncryption}${n.sipRegister ? ' · registers' : ''}` : 'carrier') },
        { label: 'Inbound agent', cell: (n) => html`<${AgentSelect} number=${n} field="inboundAgentId" agents=${list} onDone=${numbers.reload} />` },
        { label: 'Outbound agent', cell: (n) => html`<${AgentSelect} number=${n} field="outboundAgentId" agents=${list} onDone=${numbers.reload} />` },
        { label: 'Actions', cell: (n) => html`<button aria-label=${`Edit ${n.e164}`} onClick=${() => setEditing(n.id)}>Edit</button>` },
      ]} />
    ${edited ? html`<${EditNumber} key=${edited.id + edited.updatedAt} number=${edited} onDone=${numbers.reload} onClose=${() => setEditing(undefined)} />` : null}
    <${Connect} onDone=${numbers.reload} />
    <${BuyFromCarrier} onDone=${numbers.reload} />`
}
