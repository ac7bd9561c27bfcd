// An agent's voice, model and tools as form fields built from GET /api/providers. They read and
// write the same JSON text the advanced view shows, so the two views never disagree. Then the
// knowledge bases an agent links, and their pages (#/knowledge, #/knowledge/<id>).
import { useState } from 'preact/hooks'
import { del, get, post } from '../api.mjs'
import { Field, html, Problem, Table, useAction, useData, when } from '../ui.mjs'
import { AnswerPreview } from './workflow-editor.mjs'

/** Pure: the object a JSON text holds, or undefined when it is not a JSON object. */
export function parseObject(text) {
  try {
    const v = JSON.parse(text || '{}')
    return v && typeof v === 'object' && !Array.isArray(v) ? v : undefined
  } catch {
    return undefined
  }
}

const needsKey = (p) => (p.available ? '' : ' (not configured here)')

export function VoiceFields({ providers, voiceText, onVoiceText, error }) {
  const voice = parseObject(voiceText)
  if (!voice) return html`<p class="warn">The voice in the advanced view is not valid JSON: fix it there.</p>`
  const provider = providers.voice.find((p) => p.id === voice.provider)
  const voices = [...new Set([...(provider?.voices ?? []), ...(voice.voiceId ? [voice.voiceId] : [])])]
  const write = (change) => onVoiceText(JSON.stringify({ ...voice, ...change }))
  const pick = (e) => {
    const next = providers.voice.find((p) => p.id === e.target.value)
    write({ provider: e.target.value, voiceId: next?.voices[0] ?? '' })
  }
  return html`<fieldset class="tools"><legend>Voice</legend>
    <${Field} label="Voice provider" name="voiceProvider" as="select" value=${voice.provider ?? ''} onChange=${pick} error=${error}>
      ${provider ? null : html`<option value=${voice.provider ?? ''}>${voice.provider ?? 'none'}</option>`}
      ${providers.voice.map((p) => html`<option value=${p.id}>${p.name}${needsKey(p)}</option>`)}
    <//>
    <${Field} label="Voice id" name="voiceId" as="select" value=${voice.voiceId ?? ''} onChange=${(e) => write({ voiceId: e.target.value })}>
      ${voices.map((v) => html`<option value=${v}>${v}</option>`)}
    <//>
    <${Field} label="Speed" name="voiceSpeed" type="number" step="0.1" min="0.5" max="2" value=${voice.speed ?? 1}
      onInput=${(e) => e.target.value !== '' && write({ speed: Number(e.target.value) })} />
  </fieldset>`
}

export function ModelSelect({ providers, value, onChange, error }) {
  const known = providers.llm.some((p) => p.models.includes(value))
  return html`<${Field} label="LLM model" name="llmModelSelect" as="select" value=${value} onChange=${(e) => onChange(e.target.value)} error=${error}>
    ${known || !value ? null : html`<option value=${value}>${value}</option>`}
    ${providers.llm.filter((p) => p.models.length).map((p) => html`<optgroup label=${`${p.name}${needsKey(p)}`}>${p.models.map((m) => html`<option value=${m}>${m}</option>`)}</optgroup>`)}
  <//>`
}

/** A field per simple setting of a tool's schema (text, number, choice); lists and maps as JSON. */
function Setting({ tool, prop, schema, value, required, onSet }) {
  const label = `${tool} ${prop}${required ? '' : ' (optional)'}`
  const choices = schema.anyOf?.every((s) => 'const' in s) ? schema.anyOf.map((s) => s.const) : undefined
  if (choices) {
    return html`<${Field} label=${label} name=${`${tool}.${prop}`} as="select" value=${value ?? schema.default ?? ''} onChange=${(e) => onSet(e.target.value)}>
      ${choices.map((c) => html`<option value=${c}>${c}</option>`)}<//>`
  }
  if (schema.type === 'string' || schema.type === 'integer' || schema.type === 'number') {
    const number = schema.type !== 'string'
    return html`<${Field} label=${label} name=${`${tool}.${prop}`} type=${number ? 'number' : 'text'} value=${value ?? ''} placeholder=${schema.default ?? ''}
      title=${schema.description} onInput=${(e) => onSet(e.target.value === '' ? undefined : number ? Number(e.target.value) : e.target.value)} />`
  }
  return html`<${Field} label=${`${label} (JSON)`} name=${`${tool}.${prop}`} as="textarea" rows="3" class="code" title=${schema.description}
    value=${value === undefined ? '' : JSON.stringify(value)} onChange=${(e) => {
      try {
        onSet(e.target.value.trim() ? JSON.parse(e.target.value) : undefined)
      } catch {
        e.target.setCustomValidity('not valid JSON')
        e.target.reportValidity()
      }
    }} />`
}

export function ToolFields({ tools, enabled, configsText, onEnabled, onConfigsText, errorFor }) {
  const configs = parseObject(configsText)
  const toggle = (name) => (e) => onEnabled(e.target.checked ? [...enabled, name] : enabled.filter((n) => n !== name))
  const setProp = (tool, prop) => (value) => {
    const entry = { ...(configs[tool] ?? {}) }
    if (value === undefined) delete entry[prop]
    else entry[prop] = value
    onConfigsText(JSON.stringify({ ...configs, [tool]: entry }))
  }
  return html`<fieldset class="tools"><legend>Tools</legend>
    ${configs ? null : html`<p class="warn">The tool settings in the advanced view are not valid JSON: fix them there.</p>`}
    ${tools.map((tool) => {
      const on = enabled.includes(tool.name)
      const props = Object.entries(tool.config?.properties ?? {})
      return html`<div class="tool">
        <label class="check"><input type="checkbox" name=${`tool-${tool.name}`} checked=${on} onChange=${toggle(tool.name)} /> ${tool.name}: ${tool.description}</label>
        ${on && configs ? props.map(([prop, schema]) => html`<${Setting} tool=${tool.name} prop=${prop} schema=${schema} value=${configs[tool.name]?.[prop]}
          required=${(tool.config.required ?? []).includes(prop) && schema.default === undefined} onSet=${setProp(tool.name, prop)} />`) : null}
        ${errorFor(tool.name) ? html`<p class="field-error" role="alert">${errorFor(tool.name)}</p>` : null}
      </div>`
    })}
  </fieldset>`
}

const PRESETS = ['fast', 'normal', 'patient']

/** The agent's endpointing: a preset, or "custom ms" with a number of 100-5000 (what PUT takes). */
export function EndpointingFields({ value, onChange, error }) {
  const custom = typeof value === 'number'
  const pick = (e) => onChange(e.target.value === 'custom' ? (custom ? value : 500) : e.target.value)
  return html`<${Field} label="End of turn (silence that ends the caller's turn)" name="endpointing" as="select" value=${custom ? 'custom' : value ?? 'normal'}
      onChange=${pick} error=${custom ? undefined : error}>
      ${PRESETS.map((p) => html`<option value=${p}>${p}${p === 'normal' ? ' (default)' : ''}</option>`)}
      <option value="custom">custom ms</option>
    <//>
    ${custom ? html`<${Field} label="End of turn, ms (100-5000)" name="endpointingMs" type="number" step="10" min="100" max="5000" value=${value}
      onInput=${(e) => e.target.value !== '' && onChange(Number(e.target.value))} error=${error} />` : null}`
}

/** The workspace's knowledge bases as checkboxes (a link to each linked one) and knowledgeAutoSearch. */
export function KnowledgeFields({ linked, autoSearch, onLinked, onAutoSearch, fields }) {
  const { data, error } = useData(() => get('/api/knowledge-bases?limit=100'))
  const known = data?.knowledgeBases ?? []
  const bases = [...known, ...linked.filter((id) => !known.some((b) => b.id === id)).map((id) => ({ id, name: id }))]
  const toggle = (id) => (e) => onLinked(e.target.checked ? [...linked, id] : linked.filter((x) => x !== id))
  return html`<fieldset class="tools"><legend>Knowledge bases</legend>
    <${Problem} error=${error} />
    ${data && !bases.length ? html`<p class="hint">No knowledge base yet: <a href="#/knowledge">create one</a>.</p>` : null}
    ${bases.map((b) => {
      const on = linked.includes(b.id)
      const problem = on ? fields?.[`knowledgeBaseIds[${linked.indexOf(b.id)}]`] : undefined
      return html`<div class="tool">
        <label class="check"><input type="checkbox" name=${`knowledge-${b.id}`} checked=${on} onChange=${toggle(b.id)} /> ${b.name}</label>
        ${on ? html`<a href=${`#/knowledge/${b.id}`}>Open ${b.name}</a>` : null}
        ${problem ? html`<p class="field-error" role="alert">${problem}</p>` : null}
      </div>`
    })}
    ${fields?.knowledgeBaseIds ? html`<p class="field-error" role="alert">${fields.knowledgeBaseIds}</p>` : null}
    <label class="check"><input type="checkbox" name="knowledgeAutoSearch" checked=${autoSearch} onChange=${(e) => onAutoSearch(e.target.checked)} />
      Search the linked bases on every caller turn (an LLM agent; otherwise only when it calls knowledge_search)</label>
  </fieldset>`
}

const FORMATS = [['', 'from the file name'], ['text', 'text'], ['markdown', 'Markdown'], ['html', 'HTML'], ['faq_csv', 'FAQ CSV (question,answer)']]
const base = (id, rest = '') => `/api/knowledge-bases/${encodeURIComponent(id)}${rest}`
/** Pure: a byte count as people read it. */
export const size = (n) => (n < 1024 ? `${n} B` : n < 1024 * 1024 ? `${(n / 1024).toFixed(1)} KB` : `${(n / 1024 / 1024).toFixed(1)} MB`)
/** Errors that no field of the form shows. */
const unclaimed = (error, paths) => (error && !paths.some((p) => error.fields?.[p]) ? error : undefined)

function CreateBase({ onCreated }) {
  const [form, setForm] = useState({ name: '', description: '', language: '' })
  const { error, busy, run, fieldError } = useAction()
  const set = (k) => (e) => setForm({ ...form, [k]: e.target.value })
  const submit = (e) => {
    e.preventDefault()
    run(async () => onCreated((await post('/api/knowledge-bases', { name: form.name, description: form.description || undefined, language: form.language || undefined })).knowledgeBase))
  }
  return html`<form class="card" onSubmit=${submit} aria-label="Create a knowledge base">
    <h2>Create a knowledge base</h2>
    <${Field} label="Name" name="name" required value=${form.name} onInput=${set('name')} error=${fieldError('name')} />
    <${Field} label="Description (optional)" name="description" as="textarea" rows="2" value=${form.description} onInput=${set('description')} error=${fieldError('description')} />
    <${Field} label="Language (optional, default en)" name="language" placeholder="en" value=${form.language} onInput=${set('language')} error=${fieldError('language')} />
    <${Problem} error=${unclaimed(error, ['name', 'description', 'language'])} />
    <button type="submit" disabled=${busy}>Create knowledge base</button>
  </form>`
}

export function KnowledgeBasesPage() {
  const { data, error, reload } = useData(() => get('/api/knowledge-bases?limit=100'))
  const created = (kb) => {
    location.hash = `#/knowledge/${kb.id}`
    reload()
  }
  return html`<h1>Knowledge</h1>
    <p class="hint">Documents agents answer from: a workflow's answer node speaks the best passage, an LLM agent searches them. Link a base on the agent's page.</p>
    <${Problem} error=${error} />
    <${Table} caption="Knowledge bases" rows=${data?.knowledgeBases} empty="No knowledge base yet: create one below."
      columns=${[
        { label: 'Name', cell: (b) => html`<a href=${`#/knowledge/${b.id}`}>${b.name}</a>` },
        { label: 'Description', cell: (b) => b.description ?? '' },
        { label: 'Language', cell: (b) => b.language },
        { label: 'Updated', cell: (b) => when(b.updatedAt) },
      ]} />
    <${CreateBase} onCreated=${created} />`
}

/** Reads a file in the browser as base64 (the API takes it as contentBase64 and checks it is text). */
function readBase64(file) {
  return new Promise((resolve, reject) => {
    const reader = new FileReader()
    reader.onload = () => resolve(String(reader.result).replace(/^[^,]*,/, ''))
    reader.onerror = () => reject(reader.error)
    reader.readAsDataURL(file)
  })
}

function Upload({ id, onUploaded }) {
  const [file, setFile] = useState()
  const [format, setFormat] = useState('')
  const [done, setDone] = useState()
  const { error, busy, run, fieldError } = useAction()
  const submit = (e) => {
    e.preventDefault()
    const form = e.currentTarget
    run(async () => {
      setDone(undefined)
      const r = await post(base(id, '/documents'), { name: file.name, contentBase64: await readBase64(file), ...(format ? { format } : {}) })
      setDone(r)
      setFile(undefined)
      form.reset()
      onUploaded()
    })
  }
  const fileError = fieldError('contentBase64') ?? fieldError('content') ?? fieldError('name')
  return html`<form class="card" onSubmit=${submit} aria-label="Upload a document">
    <h2>Upload a document</h2>
    <${Field} label="File (text, Markdown, HTML or an FAQ CSV; the same name replaces the document)" name="file" type="file" required
      accept=".txt,.text,.md,.markdown,.html,.htm,.csv,text/*" onChange=${(e) => setFile(e.target.files[0])} error=${fileError} />
    <${Field} label="Format" name="format" as="select" value=${format} onChange=${(e) => setFormat(e.target.value)} error=${fieldError('format')}>
      ${FORMATS.map(([v, l]) => html`<option value=${v}>${l}</option>`)}
    <//>
    <${Problem} error=${unclaimed(error, ['contentBase64', 'content', 'name', 'format'])} />
    <button type="submit" disabled=${busy || !file}>Upload</button>
    ${done ? html`<p role="status">${done.replaced ? 'Replaced' : 'Added'} ${done.document.name}: ${done.document.passages} passages
      (${done.index.added} added, ${done.index.removed} removed, ${done.index.kept} kept).</p>` : null}
  </form>`
}

export function KnowledgePage({ id }) {
  const kb = useData(() => get(base(id)), [id])
  const docs = useData(() => get(base(id, '/documents?limit=100')), [id])
  const [reindexed, setReindexed] = useState()
  const action = useAction()
  const b = kb.data?.knowledgeBase
  if (!b) return html`<h1>Knowledge base</h1><${Problem} error=${kb.error} /><p><a href="#/knowledge">All knowledge bases</a></p>`
  const removeDoc = (d) => confirm(`Delete ${d.name} and its passages?`) && action.run(async () => {
    await del(base(id, `/documents/${d.id}`))
    docs.reload()
  })
  const reindex = () => action.run(async () => setReindexed(await post(base(id, '/reindex'))))
  const removeBase = () => confirm(`Delete ${b.name} with its documents? Agents that link it no longer will.`) && action.run(async () => {
    await del(base(id))
    location.hash = '#/knowledge'
  })
  return html`<h1>Knowledge base: ${b.name}</h1>
    <p><a href="#/knowledge">All knowledge bases</a></p>
    ${b.description ? html`<p>${b.description}</p>` : null}
    <p class="hint">Language ${b.language}; updated ${when(b.updatedAt)}.</p>
    <${Problem} error=${docs.error ?? action.error} />
    <${Table} caption="Documents" rows=${docs.data?.documents} empty="No document yet: upload one below."
      columns=${[
        { label: 'Name', cell: (d) => d.name },
        { label: 'Format', cell: (d) => d.format },
        { label: 'Passages', cell: (d) => d.passages },
        { label: 'Size', cell: (d) => size(d.bytes) },
        { label: 'Updated', cell: (d) => when(d.updatedAt) },
        { label: 'Actions', cell: (d) => html`<button type="button" class="danger" aria-label=${`Delete ${d.name}`} disabled=${action.busy} onClick=${() => removeDoc(d)}>Delete</button>` },
      ]} />
    <div class="actions">
      <button type="button" disabled=${action.busy} onClick=${reindex}>Re-index</button>
    </div>
    ${reindexed ? html`<p role="status">Re-indexed ${reindexed.documents} documents: ${reindexed.added} passages added, ${reindexed.removed} removed, ${reindexed.kept} kept.</p>` : null}
    <${Upload} id=${id} onUploaded=${docs.reload} />
    <${AnswerPreview} baseId=${id} />
    <button class="danger" disabled=${action.busy} onClick=${removeBase}>Delete knowledge base</button>`
}
