// Settings: members and roles, API keys (a new key is shown once), payment methods, the webhook
// secret and delivery log, and the do-not-call list.
import { useState } from 'preact/hooks'
import { api, del, get, patch, post, workspaceId } from '../api.mjs'
import { Field, html, Problem, Status, Table, useAction, useData, when } from '../ui.mjs'

const ws = async (path) => `/api/workspaces/${await workspaceId()}${path}`

function Members({ list }) {
  const [email, setEmail] = useState('')
  const [role, setRole] = useState('member')
  const { error, run, fieldError } = useAction()
  const invite = (e) => {
    e.preventDefault()
    run(async () => {
      await post(await ws('/members'), { email, role })
      setEmail('')
      list.reload()
    })
  }
  const change = (m) => (e) => {
    const role = e.target.value // read now: the controlled select is re-rendered before the request
    return run(async () => {
      await patch(await ws(`/members/${m.userId}`), { role })
      list.reload()
    })
  }
  return html`<section aria-label="Members"><h2>Members</h2>
    <${Table} caption="Members" error=${list.error} rows=${list.data?.members?.map((m) => ({ ...m, id: m.userId }))}
      columns=${[
        { label: 'Email', cell: (m) => m.email },
        { label: 'Role', cell: (m) => html`<select aria-label=${`Role of ${m.email}`} value=${m.role} onChange=${change(m)}><option>member</option><option>admin</option></select>` },
        { label: 'Joined', cell: (m) => when(m.joinedAt) },
      ]} />
    <form class="inline" onSubmit=${invite} aria-label="Invite a member">
      <${Field} label="Email" name="email" type="email" value=${email} onInput=${(e) => setEmail(e.target.value)} error=${fieldError('email')} />
      <${Field} label="Role" name="role" as="select" value=${role} onChange=${(e) => setRole(e.target.value)}><option>member</option><option>admin</option><//>
      <button type="submit">Invite</button>
    </form>
    ${error && !Object.keys(error.fields).length ? html`<${Problem} error=${error} />` : null}
  </section>`
}

function ApiKeys({ members }) {
  const list = useData(async () => get(await ws('/api-keys?limit=100')))
  const [form, setForm] = useState({ name: '', userId: '', expires: '' })
  const [created, setCreated] = useState()
  const { error, run, fieldError } = useAction()
  const set = (k) => (e) => setForm({ ...form, [k]: e.target.value })
  const create = (e) => {
    e.preventDefault()
    run(async () => {
      const body = { name: form.name, ...(form.userId ? { userId: form.userId } : {}), ...(form.expires ? { expiresAt: new Date(form.expires).toISOString() } : {}) }
      setCreated((await post(await ws('/api-keys'), body)).apiKey)
      setForm({ name: '', userId: '', expires: '' })
      list.reload()
    })
  }
  const revoke = (k) => run(async () => {
    if (!confirm(`Revoke key ${k.name}? Scripts using it stop working.`)) return
    await del(await ws(`/api-keys/${k.id}`))
    list.reload()
  })
  const emailOf = (userId) => members.data?.members?.find((m) => m.userId === userId)?.email ?? userId
  return html`<section aria-label="API keys"><h2>API keys</h2>
    <${Table} caption="API keys" error=${list.error} rows=${list.data?.apiKeys}
      columns=${[
        { label: 'Name', cell: (k) => k.name },
        { label: 'Key', cell: (k) => html`<code>${k.prefix}…${k.last4}</code>` },
        { label: 'Acts as', cell: (k) => emailOf(k.userId) },
        { label: 'Created', cell: (k) => when(k.createdAt) },
        { label: 'Expires', cell: (k) => when(k.expiresAt) || 'never' },
        { label: '', cell: (k) => html`<button class="danger" aria-label=${`Revoke key ${k.name}`} onClick=${() => revoke(k)}>Revoke</button>` },
      ]} />
    ${created ? html`<div class="once" role="status"><p>Key "${created.name}": copy it now, it is not shown again.</p><code class="secret">${created.key}</code></div>` : null}
    <form class="inline" onSubmit=${create} aria-label="Create an API key">
      <${Field} label="Key name" name="keyName" value=${form.name} onInput=${set('name')} error=${fieldError('name')} />
      <${Field} label="For member" name="keyUser" as="select" value=${form.userId} onChange=${set('userId')} error=${fieldError('userId')}>
        <option value="">me</option>${(members.data?.members ?? []).map((m) => html`<option value=${m.userId}>${m.email}</option>`)}
      <//>
      <${Field} label="Expires (optional)" name="keyExpires" type="datetime-local" value=${form.expires} onInput=${set('expires')} error=${fieldError('expiresAt')} />
      <button type="submit">Create key</button>
    </form>
    ${error && !Object.keys(error.fields).length ? html`<${Problem} error=${error} />` : null}
  </section>`
}

function PaymentMethods() {
  const list = useData(async () => get(await ws('/payment-methods?limit=100')))
  const [reference, setReference] = useState('')
  const { error, run, fieldError } = useAction()
  const add = (e) => {
    e.preventDefault()
    run(async () => {
      await post(await ws('/payment-methods'), { provider: 'manual', reference })
      setReference('')
      list.reload()
    })
  }
  return html`<section aria-label="Payment methods"><h2>Payment methods</h2>
    <${Table} caption="Payment methods" error=${list.error} rows=${list.data?.paymentMethods}
      columns=${[
        { label: 'Provider', cell: (p) => p.provider },
        { label: 'Details', cell: (p) => (p.card ? `${p.card.brand} …${p.card.last4}` : p.reference) },
        { label: 'Added', cell: (p) => when(p.createdAt) },
      ]} />
    <form class="inline" onSubmit=${add} aria-label="Add a manual payment method">
      <${Field} label="Manual reference" name="reference" value=${reference} onInput=${(e) => setReference(e.target.value)} error=${fieldError('reference')} />
      <button type="submit">Add</button>
    </form>
    ${error && !Object.keys(error.fields).length ? html`<${Problem} error=${error} />` : null}
  </section>`
}

function Webhooks() {
  const secret = useData(async () => get(await ws('/webhook-secret')))
  const deliveries = useData(() => get('/api/webhook-deliveries?limit=50'))
  const [shown, setShown] = useState(false)
  const { error, run } = useAction()
  const rotate = () => run(async () => {
    if (!confirm('Rotate the webhook secret? The old one keeps signing for 24 hours.')) return
    await post(await ws('/webhook-secret'))
    secret.reload()
  })
  const retry = (d) => run(async () => {
    await post(`/api/webhook-deliveries/${d.id}/retry`)
    deliveries.reload()
  })
  const s = secret.data
  return html`<section aria-label="Webhooks"><h2>Webhooks</h2>
    ${s ? html`<p>Signing secret: <code class="secret">${shown ? s.secret : `${s.secret.slice(0, 10)}…`}</code>
      <button onClick=${() => setShown(!shown)}>${shown ? 'Hide' : 'Show'}</button> <button onClick=${rotate}>Rotate</button>
      ${s.rotatedAt ? html` <small>rotated ${when(s.rotatedAt)}</small>` : null}</p>` : null}
    <${Problem} error=${error ?? secret.error} />
    <${Table} caption="Deliveries" error=${deliveries.error} rows=${deliveries.data?.deliveries} empty="No webhook delivery yet."
      columns=${[
        { label: 'Event', cell: (d) => d.type },
        { label: 'URL', cell: (d) => d.url },
        { label: 'Status', cell: (d) => html`<${Status} value=${d.status} />` },
        { label: 'Attempts', cell: (d) => `${d.attemptCount}${d.lastStatusCode ? ` (HTTP ${d.lastStatusCode})` : ''}${d.lastError ? ` ${d.lastError}` : ''}` },
        { label: 'Created', cell: (d) => when(d.createdAt) },
        { label: '', cell: (d) => (d.status === 'delivered' ? '' : html`<button onClick=${() => retry(d)}>Retry</button>`) },
      ]} />
  </section>`
}

function DoNotCall() {
  const list = useData(async () => get(await ws('/do-not-call?limit=100')))
  const [number, setNumber] = useState('')
  const [reason, setReason] = useState('')
  const { error, run, fieldError } = useAction()
  const add = (e) => {
    e.preventDefault()
    run(async () => {
      await post(await ws('/do-not-call'), { number, ...(reason ? { reason } : {}) })
      setNumber('')
      setReason('')
      list.reload()
    })
  }
  const remove = (n) => run(async () => {
    await api('DELETE', await ws(`/do-not-call/${encodeURIComponent(n.number)}`))
    list.reload()
  })
  return html`<section aria-label="Do not call"><h2>Do-not-call list</h2>
    <${Table} caption="Do-not-call numbers" error=${list.error} rows=${list.data?.numbers?.map((n) => ({ ...n, id: n.number }))} empty="The list is empty."
      columns=${[
        { label: 'Number', cell: (n) => n.number },
        { label: 'Reason', cell: (n) => n.reason ?? '' },
        { label: 'Source', cell: (n) => n.source },
        { label: '', cell: (n) => html`<button aria-label=${`Remove ${n.number}`} onClick=${() => remove(n)}>Remove</button>` },
      ]} />
    <form class="inline" onSubmit=${add} aria-label="Add a do-not-call number">
      <${Field} label="Number (E.164)" name="dncNumber" value=${number} onInput=${(e) => setNumber(e.target.value)} error=${fieldError('number')} />
      <${Field} label="Reason" name="dncReason" value=${reason} onInput=${(e) => setReason(e.target.value)} error=${fieldError('reason')} />
      <button type="submit">Add</button>
    </form>
    ${error && !Object.keys(error.fields).length ? html`<${Problem} error=${error} />` : null}
  </section>`
}

export function SettingsPage() {
  const members = useData(async () => get(await ws('/members?limit=100')))
  return html`<h1>Settings</h1><${Members} list=${members} /><${ApiKeys} members=${members} /><${PaymentMethods} /><${Webhooks} /><${DoNotCall} />`
}
