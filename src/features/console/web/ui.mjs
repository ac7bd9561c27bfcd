// Small shared pieces: html, data loading, labelled fields with their API error, tables.
import { h } from 'preact'
import { useCallback, useEffect, useRef, useState } from 'preact/hooks'
import htm from 'htm'

export const html = htm.bind(h)

/** Loads with `load()` and reloads on `deps`; `every` (ms) polls while mounted. */
export function useData(load, deps = [], every = 0) {
  const [state, setState] = useState({ data: undefined, error: undefined })
  const alive = useRef(true)
  const run = useCallback(() => {
    load().then(
      (data) => alive.current && setState({ data, error: undefined }),
      (error) => alive.current && setState((s) => ({ data: s.data, error })),
    )
  }, deps)
  useEffect(() => {
    alive.current = true
    run()
    const timer = every ? setInterval(run, every) : undefined
    return () => {
      alive.current = false
      if (timer) clearInterval(timer)
    }
  }, [run])
  return { ...state, reload: run }
}

let nextId = 0
/** A labelled input with the API's message for its field under it. */
export function Field({ label, name, error, as = 'input', children, ...props }) {
  const id = useRef(`f${++nextId}`).current
  const errId = `${id}-err`
  const control = as === 'select'
    ? html`<select id=${id} name=${name} aria-invalid=${error ? 'true' : 'false'} aria-describedby=${error ? errId : undefined} ...${props}>${children}</select>`
    : as === 'textarea'
      ? html`<textarea id=${id} name=${name} aria-invalid=${error ? 'true' : 'false'} aria-describedby=${error ? errId : undefined} ...${props} />`
      : html`<input id=${id} name=${name} aria-invalid=${error ? 'true' : 'false'} aria-describedby=${error ? errId : undefined} ...${props} />`
  return html`<div class="field">
    <label for=${id}>${label}</label>
    ${control}
    ${error ? html`<p class="field-error" id=${errId} role="alert">${error}</p>` : null}
  </div>`
}

/** The error of a failed request that no field claims. */
export function Problem({ error }) {
  if (!error) return null
  const fields = Object.entries(error.fields ?? {})
  return html`<div class="problem" role="alert">${error.message}${fields.length ? html`<ul>${fields.map(([p, m]) => html`<li>${p}: ${m}</li>`)}</ul>` : null}</div>`
}

export function Table({ caption, columns, rows, empty = 'Nothing yet.', error }) {
  if (!rows) return error ? html`<${Problem} error=${error} />` : html`<p aria-busy="true">Loading…</p>`
  if (!rows.length) return html`<p class="empty">${empty}</p>`
  return html`<div class="table-wrap"><table>
    <caption>${caption}</caption>
    <thead><tr>${columns.map((c) => html`<th scope="col">${c.label}</th>`)}</tr></thead>
    <tbody>${rows.map((r) => html`<tr key=${r.id}>${columns.map((c) => html`<td>${c.cell(r)}</td>`)}</tr>`)}</tbody>
  </table></div>`
}

/** Runs an async action from a form, keeping its error for the fields. */
export function useAction() {
  const [error, setError] = useState()
  const [busy, setBusy] = useState(false)
  const run = async (fn) => {
    setBusy(true)
    setError(undefined)
    try {
      return await fn()
    } catch (e) {
      setError(e)
    } finally {
      setBusy(false)
    }
  }
  return { error, busy, run, fieldError: (path) => error?.fields?.[path] }
}

export const when = (iso) => (iso ? new Date(iso).toLocaleString() : '')
export const money = (v) => (typeof v === 'number' ? `$${v.toFixed(4)}` : '')
export const Status = ({ value }) => html`<span class=${`status status-${value}`}>${value}</span>`
