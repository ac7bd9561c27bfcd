// The knowledge bases of the workspace: the list with a create form, and a base's page with its
// documents (uploaded as files read in the browser), re-indexing and a search showing what a
// caller's question would retrieve.
import { useState } from 'preact/hooks'
import { del, get, post } from '../api.mjs'
import { Field, html, Problem, Table, useAction, useData, when } from '../ui.mjs'
import { AnswerPreview } from './workflow-editor.mjs'

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
