// Editing a workflow draft one node or edge at a time: pure changes to the graph, and the forms;
// an answer node's settings, and the preview of what it would say (a knowledge base's search).
import { useState } from 'preact/hooks'
import { get, qs } from '../api.mjs'
import { Field, html, Problem, useAction } from '../ui.mjs'

export const NODE_TYPES = ['start', 'say', 'conversation', 'collect', 'condition', 'tool', 'transfer', 'end', 'answer']
/** The score an answer node needs by default to speak a passage (its minScore). */
export const MIN_SCORE = 0.7
const NO_MATCH = '{"type":"no_match"}'

/** Pure: the graph with node `id` replaced (renaming moves its edges along), added, or removed. */
export function withNode(graph, id, node) {
  const nodes = graph.nodes.filter((n) => n.id !== id)
  let edges = graph.edges
  if (node && node.id !== id) edges = edges.map((e) => ({ ...e, from: e.from === id ? node.id : e.from, to: e.to === id ? node.id : e.to }))
  if (!node) edges = edges.filter((e) => e.from !== id && e.to !== id)
  const at = graph.nodes.findIndex((n) => n.id === id)
  if (node) nodes.splice(at < 0 ? nodes.length : at, 0, node)
  return { ...graph, nodes, edges }
}

function parse(text) {
  try {
    return { value: text.trim() ? JSON.parse(text) : undefined }
  } catch {
    return { error: 'not valid JSON' }
  }
}

/** An answer node's minScore and maxChars as number fields over the config JSON text (empty: default). */
function AnswerFields({ configText, onConfigText }) {
  const { value = {}, error } = parse(configText)
  const config = !error && value && typeof value === 'object' && !Array.isArray(value) ? value : undefined
  if (!config) return html`<p class="warn">The node config is not a JSON object: fix it below.</p>`
  const write = (key) => (e) => {
    const { [key]: _, ...rest } = config
    onConfigText(JSON.stringify(e.target.value === '' ? rest : { ...rest, [key]: Number(e.target.value) }, null, 1))
  }
  return html`<div class="inline">
    <${Field} label="Minimum confidence to answer (0-1, default 0.7)" name="minScore" type="number" min="0" max="1" step="0.05" value=${config.minScore ?? ''} placeholder="0.7" onInput=${write('minScore')} />
    <${Field} label="Most characters spoken (40-1000, default 300)" name="maxChars" type="number" min="40" max="1000" step="1" value=${config.maxChars ?? ''} placeholder="300" onInput=${write('maxChars')} />
  </div>
  <p class="hint">Speaks the best passage of the agent's knowledge bases when it scores at least the minimum; otherwise takes its one no_match edge.</p>`
}

/** The chosen node's id, type and config, and the edges leaving it; changes go to the draft only. */
export function NodeEditor({ graph, nodeId, issues, onChange, onClose }) {
  const node = graph.nodes.find((n) => n.id === nodeId)
  const [form, setForm] = useState({ id: node?.id ?? '', type: node?.type ?? 'say', config: JSON.stringify(node?.config ?? {}, null, 1) })
  const [edge, setEdge] = useState({ to: '', condition: '' })
  const [local, setLocal] = useState({})
  if (!node) return null
  const set = (k) => (e) => setForm({ ...form, [k]: e.target.value })
  const issue = (pred) => issues.filter(pred).map((i) => i.message).join('; ') || undefined
  const apply = (e) => {
    e.preventDefault()
    const config = parse(form.config)
    if (config.error) return setLocal({ config: config.error })
    setLocal({})
    onChange(withNode(graph, node.id, { ...node, id: form.id, type: form.type, config: config.value ?? {} }), form.id)
  }
  const addEdge = (e) => {
    e.preventDefault()
    const condition = parse(edge.condition)
    if (condition.error) return setLocal({ condition: condition.error })
    setLocal({})
    onChange({ ...graph, edges: [...graph.edges, { from: node.id, to: edge.to, ...(condition.value ? { condition: condition.value } : {}) }] }, node.id)
    setEdge({ to: '', condition: '' })
  }
  const removeEdge = (index) => onChange({ ...graph, edges: graph.edges.filter((_, i) => i !== index) }, node.id)
  const outgoing = graph.edges.map((e, index) => ({ ...e, index })).filter((e) => e.from === node.id)
  return html`<form class="card" onSubmit=${apply} aria-label=${`Node ${node.id}`}>
    <h2>Node ${node.id}</h2>
    <${Field} label="Node id" name="nodeId" value=${form.id} onInput=${set('id')} error=${issue((i) => i.nodeId === node.id && /id/.test(i.rule ?? ''))} />
    <${Field} label="Node type" name="nodeType" as="select" value=${form.type} onChange=${set('type')}>${NODE_TYPES.map((t) => html`<option>${t}</option>`)}<//>
    ${form.type === 'answer' ? html`<${AnswerFields} configText=${form.config} onConfigText=${(config) => setForm({ ...form, config })} />` : null}
    <${Field} label="Node config (JSON)" name="nodeConfig" as="textarea" rows="4" value=${form.config} onInput=${set('config')}
      error=${local.config ?? issue((i) => i.nodeId === node.id && !/id/.test(i.rule ?? ''))} />
    <div class="actions">
      <button type="submit">Apply to draft</button>
      <button type="button" class="danger" onClick=${() => onChange(withNode(graph, node.id, undefined), undefined)}>Remove node</button>
      <button type="button" onClick=${onClose}>Close</button>
    </div>
    <h3>Edges from ${node.id}</h3>
    <ul>${outgoing.map((e) => html`<li>to ${e.to}: <code>${e.condition ? JSON.stringify(e.condition) : 'else'}</code>
      ${issue((i) => i.edgeIndex === e.index) ? html` <span class="field-error">${issue((i) => i.edgeIndex === e.index)}</span>` : null}
      <button type="button" class="link" aria-label=${`Remove edge to ${e.to}`} onClick=${() => removeEdge(e.index)}>remove</button></li>`)}</ul>
    <div class="inline">
      <${Field} label="New edge to" name="edgeTo" as="select" value=${edge.to} onChange=${(e) => setEdge({ ...edge, to: e.target.value })}>
        <option value="">choose…</option>${graph.nodes.map((n) => html`<option>${n.id}</option>`)}
      <//>
      <${Field} label="Condition (JSON, empty for else)" name="edgeCondition" value=${edge.condition} placeholder='{"type":"dtmf","digits":"1"}'
        onInput=${(e) => setEdge({ ...edge, condition: e.target.value })} error=${local.condition} />
      ${node.type === 'answer' ? html`<label class="check"><input type="checkbox" name="edgeNoMatch" checked=${edge.condition === NO_MATCH}
        onChange=${(e) => setEdge({ ...edge, condition: e.target.checked ? NO_MATCH : '' })} /> no answer (no_match)</label>` : null}
      <button type="button" onClick=${addEdge} disabled=${!edge.to}>Add edge</button>
    </div>
  </form>`
}

/** Adds a node to the draft and selects it. */
export function AddNode({ graph, onChange }) {
  const [id, setId] = useState('')
  const [type, setType] = useState('say')
  const taken = graph.nodes.some((n) => n.id === id)
  const add = (e) => {
    e.preventDefault()
    onChange(withNode(graph, id, { id, type, config: type === 'say' ? { text: '' } : {} }), id)
    setId('')
  }
  return html`<form class="inline" onSubmit=${add} aria-label="Add a node">
    <${Field} label="New node id" name="newNodeId" value=${id} onInput=${(e) => setId(e.target.value)} error=${taken ? 'a node has this id' : undefined} />
    <${Field} label="New node type" name="newNodeType" as="select" value=${type} onChange=${(e) => setType(e.target.value)}>${NODE_TYPES.map((t) => html`<option>${t}</option>`)}<//>
    <button type="submit" disabled=${!id || taken}>Add node</button>
  </form>`
}

/**
 * A knowledge base's search as an answer node would use it: a caller's question, the ranked
 * passages with their score, document > section, the text, and what an agent would say; results
 * scoring at least MIN_SCORE would be answered (the first is the one spoken).
 */
export function AnswerPreview({ baseId }) {
  const [q, setQ] = useState('')
  const [results, setResults] = useState()
  const { error, busy, run, fieldError } = useAction()
  const submit = (e) => {
    e.preventDefault()
    run(async () => setResults((await get(`/api/knowledge-bases/${encodeURIComponent(baseId)}/search${qs({ q, limit: 5 })}`)).results))
  }
  return html`<form class="card" role="search" onSubmit=${submit} aria-label="Search the knowledge base">
    <h2>Try a question</h2>
    <${Field} label="A caller's question" name="q" type="search" required value=${q} onInput=${(e) => setQ(e.target.value)} error=${fieldError('q')} />
    <button type="submit" disabled=${busy}>Search</button>
    ${error && !fieldError('q') ? html`<${Problem} error=${error} />` : null}
    ${results ? html`<div aria-live="polite">${results.length ? html`<ol class="results">${results.map((r) => html`<li key=${r.passageId}>
      <p><strong class="score">${r.score.toFixed(2)}</strong> <span class="source">${r.documentName}${r.section ? ` > ${r.section}` : ''}</span>
        ${r.score >= MIN_SCORE ? html` <span class="status status-answered">would be answered</span>` : html` <span class="status">below ${MIN_SCORE}: no_match</span>`}</p>
      <blockquote>${r.text}${r.answer ? html`<br />${r.answer}` : null}</blockquote>
      <p>An agent would say: <q class="spoken">${r.spoken}</q></p>
    </li>`)}</ol>` : html`<p class="empty">No passage matches: an answer node would take its no_match edge.</p>`}</div>` : null}
  </form>`
}
