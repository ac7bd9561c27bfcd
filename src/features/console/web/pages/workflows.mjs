// An agent's workflow: the graph drawn in layers, the graph edited as JSON with validation
// issues shown on the node or edge they name, and a test-run that lights the path taken.
import { useState } from 'preact/hooks'
import { get, post, put } from '../api.mjs'
import { BOX, layoutGraph } from '../graph-layout.mjs'
import { Field, html, Problem, useAction, useData } from '../ui.mjs'
import { BrowserCall } from './browser-call.mjs'
import { AddNode, NodeEditor } from './workflow-editor.mjs'

function issuesOf(error) {
  return error?.status === 422 ? (error.issues ?? []) : []
}

function Graph({ graph, path, issues, selected, onSelect }) {
  const g = layoutGraph(graph)
  const lit = new Set(path)
  const litEdges = new Set(path.slice(1).map((to, i) => `${path[i]}>${to}`))
  const nodeIssue = (id) => issues.filter((i) => i.nodeId === id).map((i) => i.message).join('; ')
  return html`<svg class="graph" viewBox=${`${g.minX} ${g.minY} ${g.width} ${g.height}`} width=${g.width} role="group" aria-label=${`Workflow graph, ${g.nodes.length} nodes${path.length ? `, path ${path.join(' then ')}` : ''}`}>
    <defs><marker id="arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" markerHeight="7" orient="auto"><path d="M0 0 10 5 0 10z" fill="#57606a" /></marker></defs>
    ${g.edges.map((e) => html`<g class=${`edge${litEdges.has(`${e.from}>${e.to}`) ? ' lit' : ''}${issues.some((i) => i.edgeIndex === e.index) ? ' invalid' : ''}`}>
      <path d=${e.d} marker-end="url(#arrow)" />
      <rect class="label" x=${e.label.x} y=${e.label.y} width=${e.label.w} height=${e.label.h} rx="3" />
      <text x=${e.label.cx} y=${e.label.cy} text-anchor="middle" dominant-baseline="central">${e.label.text}</text></g>`)}
    ${g.nodes.map((n) => {
      const problem = nodeIssue(n.id)
      const choose = () => onSelect(n.id)
      return html`<g class=${`node node-${n.type}${lit.has(n.id) ? ' lit' : ''}${problem ? ' invalid' : ''}${selected === n.id ? ' selected' : ''}`} data-node=${n.id} data-lit=${lit.has(n.id) ? 'true' : 'false'}
        role="button" tabindex="0" aria-pressed=${selected === n.id ? 'true' : 'false'}
        onClick=${choose} onKeyDown=${(e) => (e.key === 'Enter' || e.key === ' ') && (e.preventDefault(), choose())}>
        <rect x=${n.x} y=${n.y} width=${BOX.w} height=${BOX.h} rx="6" />
        <text x=${n.x + 8} y=${n.y + 18}>${n.id}</text>
        <text class="type" x=${n.x + 8} y=${n.y + 35}>${n.type}</text>
        ${problem ? html`<title>${problem}</title>` : null}</g>`
    })}
  </svg>`
}

function TestRun({ id, draft, onPath }) {
  const [lines, setLines] = useState('dtmf:1')
  const [result, setResult] = useState()
  const { error, busy, run } = useAction()
  const submit = (e) => {
    e.preventDefault()
    run(async () => {
      const inputs = lines.split('\n').filter((l) => l.trim()).map((content) => ({ role: 'user', content }))
      const r = await post(`/api/agents/${id}/workflow/test-run`, { inputs, ...(draft ? { workflow: draft } : {}) })
      setResult(r)
      onPath(r.path)
    })
  }
  return html`<form class="card" onSubmit=${submit} aria-label="Test-run">
    <h2>Test-run</h2>
    <${Field} label="Caller turns, one a line (dtmf:12# for keys)" name="inputs" as="textarea" rows="4" value=${lines} onInput=${(e) => setLines(e.target.value)} />
    <button type="submit" disabled=${busy}>Run</button>
    <${Problem} error=${error} />
    ${result ? html`<div class="result" aria-live="polite">
      <p>Path: <strong class="path">${result.path.join(' → ')}</strong></p>
      <p>Final: ${result.finalNode} (${result.finalAction ?? 'none'})</p>
      <ol>${result.responses.map((r) => html`<li><span class="who">${r.nodeId}</span> ${r.output}</li>`)}</ol>
    </div>` : null}
  </form>`
}

export function WorkflowPage({ id }) {
  const { data, error } = useData(() => get(`/api/agents/${id}/workflow`), [id])
  const [path, setPath] = useState([])
  const [text, setText] = useState()
  const [selected, setSelected] = useState()
  const [saved, setSaved] = useState()
  const save = useAction()
  const wf = saved ?? data?.workflow
  if (!wf) return html`<h1>Workflow</h1><${Problem} error=${error} /><p><a href=${`#/agents/${id}`}>Back to the agent</a></p>`
  const source = text ?? JSON.stringify({ nodes: wf.nodes, edges: wf.edges, settings: wf.settings }, null, 2)
  let draft
  try {
    draft = JSON.parse(source)
  } catch {}
  const issues = issuesOf(save.error)
  const edit = (graph, nodeId) => {
    setText(JSON.stringify(graph, null, 2))
    setSelected(nodeId)
  }
  const draftCall = () => {
    if (!draft) throw new Error('the graph is not valid JSON')
    return { draft: true, workflow: draft }
  }
  const submit = (e) => {
    e.preventDefault()
    save.run(async () => {
      if (!draft) throw Object.assign(new Error('the graph is not valid JSON'), { fields: {} })
      setSaved((await put(`/api/agents/${id}/workflow`, draft)).workflow)
      setText(undefined)
    })
  }
  return html`<h1>Workflow</h1>
    <p><a href=${`#/agents/${id}`}>Back to the agent</a></p>
    <p class="hint">Choose a node to edit it; changes stay in the draft (test-run it) until you save.</p>
    <div class="graph-wrap">${draft ? html`<${Graph} graph=${draft} path=${path} issues=${issues} selected=${selected} onSelect=${setSelected} />` : html`<p class="warn">The graph is not valid JSON.</p>`}</div>
    ${draft ? html`<${AddNode} graph=${draft} onChange=${edit} />` : null}
    ${draft && selected ? html`<${NodeEditor} key=${selected + source.length} graph=${draft} nodeId=${selected} issues=${issues} onChange=${edit} onClose=${() => setSelected(undefined)} />` : null}
    <${TestRun} id=${id} draft=${text === undefined ? undefined : draft} onPath=${setPath} />
    <${BrowserCall} agentId=${id} draftLabel="Test the draft: the graph as edited here (unsaved) and the draft prompt" draftBody=${draftCall} />
    <form class="card" onSubmit=${submit} aria-label="Edit the graph">
      <${Field} label="Graph (nodes, edges, settings)" name="graph" as="textarea" rows="14" class="code" value=${source} onInput=${(e) => setText(e.target.value)} />
      ${issues.length ? html`<div role="alert"><ul class="problems">${issues.map((i) => html`<li>${i.nodeId ? html`<strong>${i.nodeId}</strong>: ` : ''}${i.message}</li>`)}</ul></div>` : html`<${Problem} error=${save.error} />`}
      <div class="actions">
        <button type="submit" disabled=${save.busy}>Save workflow</button>
        ${text !== undefined ? html`<button type="button" onClick=${() => setText(undefined)}>Discard the draft</button>` : null}
      </div>
    </form>`
}
