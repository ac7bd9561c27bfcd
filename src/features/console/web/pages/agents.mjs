// Agents: the list, create (blank or from a template), and one agent's page to edit its fields,
// publish the draft prompt (with the difference shown) and read its readiness.
import { useState } from 'preact/hooks'
import { apiResponse, del, get, post, put } from '../api.mjs'
import { Field, html, Problem, Table, useAction, useData, when } from '../ui.mjs'
import { EndpointingFields, KnowledgeFields, VocabularyFields, ModelSelect, PromptVariables, ToolFields, VoiceFields, WorkflowRuns } from './agent-fields.mjs'
import { BrowserCall } from './browser-call.mjs'

const TEMPLATES = [
  ['receptionist', 'Receptionist (inbound, offline workflow)'],
  ['booking', 'Appointment booking (inbound, offline workflow)'],
  ['sales', 'Sales calls (outbound, offline workflow)'],
  ['followup', 'Follow-up calls (outbound, offline workflow)'],
]

function Readiness({ readiness }) {
  if (!readiness) return null
  return html`<section class=${`readiness ${readiness.canConverse ? 'ok' : 'bad'}`} aria-label="Readiness">
    <p><strong>${readiness.canConverse ? 'Ready to converse' : 'Cannot converse'}</strong> (brain: ${readiness.brain})</p>
    ${readiness.problems?.length ? html`<ul class="problems">${readiness.problems.map((p) => html`<li>${p}</li>`)}</ul>` : null}
  </section>`
}

function CreateAgent({ onCreated }) {
  const [name, setName] = useState('')
  const [template, setTemplate] = useState('receptionist')
  const [business, setBusiness] = useState('')
  const { error, busy, run, fieldError } = useAction()
  const submit = (e) => {
    e.preventDefault()
    run(async () => {
      const r = await post('/api/agents', { name, ...(template ? { template, ...(business.trim() ? { business } : {}) } : {}) })
      onCreated(r.agent)
    })
  }
  return html`<form class="card" onSubmit=${submit} aria-label="Create an agent">
    <h2>Create an agent</h2>
    <${Field} label="Name" name="name" value=${name} onInput=${(e) => setName(e.target.value)} error=${fieldError('name')} />
    <${Field} label="Template" name="template" as="select" value=${template} onChange=${(e) => setTemplate(e.target.value)} error=${fieldError('template')}>
      ${TEMPLATES.map(([v, l]) => html`<option value=${v}>${l}</option>`)}
      <option value="">Blank</option>
    <//>
    ${template ? html`<${Field} label="Business (fills {{business}} in its prompt)" placeholder="Acme Dental" name="business" value=${business}
      onInput=${(e) => setBusiness(e.target.value)} error=${fieldError('business')} />` : null}
    ${error && !Object.keys(error.fields).length ? html`<${Problem} error=${error} />` : null}
    <button type="submit" disabled=${busy}>Create agent</button>
  </form>`
}

export function AgentsPage() {
  const { data, error, reload } = useData(() => get('/api/agents?limit=100'))
  const created = (agent) => {
    location.hash = `#/agents/${agent.id}`
    reload()
  }
  return html`<h1>Agents</h1>
    <${Problem} error=${error} />
    <${Table} caption="Agents" rows=${data?.agents} empty="No agent yet: create one below."
      columns=${[
        { label: 'Name', cell: (a) => html`<a href=${`#/agents/${a.id}`}>${a.name}</a>` },
        { label: 'Type', cell: (a) => a.agentType },
        { label: 'Brain', cell: (a) => a.readiness?.brain },
        { label: 'Ready', cell: (a) => (a.readiness?.canConverse ? 'yes' : html`<span class="warn">no: ${a.readiness?.problems?.[0]}</span>`) },
        { label: 'Updated', cell: (a) => when(a.updatedAt) },
      ]} />
    <${CreateAgent} onCreated=${created} />`
}

/** Line-level difference of the draft against the published prompt. */
export function lineDiff(before, after) {
  const a = (before ?? '').split('\n')
  const b = (after ?? '').split('\n')
  const inA = new Set(a)
  const inB = new Set(b)
  return [...a.filter((l) => !inB.has(l)).map((l) => ['-', l]), ...b.filter((l) => !inA.has(l)).map((l) => ['+', l])]
}

function parseJson(field, text) {
  try {
    return JSON.parse(text || '{}')
  } catch {
    throw Object.assign(new Error(`${field} is not valid JSON`), { fields: { [field]: 'not valid JSON' } })
  }
}

/** The API's message for a field or anything under it (`voice.provider`). */
const nested = (error, field) => Object.entries(error?.fields ?? {}).find(([p]) => p === field || p.startsWith(`${field}.`) || p.startsWith(`${field}[`))?.[1]

/** Plays the voice being edited (saved or not) through the appliance's TTS. */
function VoicePreview({ agentId, voiceText }) {
  const [src, setSrc] = useState()
  const [note, setNote] = useState()
  const { error, busy, run } = useAction()
  const preview = () => run(async () => {
    const voice = parseJson('voice', voiceText)
    const res = await apiResponse('POST', `/api/agents/${agentId}/voice-preview`, { voice })
    setNote(res.headers.get('x-voice-fallback') ?? undefined)
    if (src) URL.revokeObjectURL(src)
    setSrc(URL.createObjectURL(await res.blob()))
  })
  return html`<div class="preview">
    <button type="button" onClick=${preview} disabled=${busy}>Preview voice</button>
    ${src ? html`<audio src=${src} controls autoplay aria-label="Voice preview"></audio>` : null}
    ${note ? html`<p class="warn">${note}</p>` : null}
    ${error ? html`<p class="field-error" role="alert">${error.message}</p>` : null}
  </div>`
}

/** Publishing shows the diff first; an empty draft never replaces a live prompt without saying so. */
function PublishConfirm({ agent, diff, busy, onPublish, onCancel }) {
  const emptiesLive = !(agent.promptDraft ?? '').trim() && (agent.promptPublished ?? '').trim()
  return html`<div class="confirm" role="alertdialog" aria-label="Publish the draft">
    ${emptiesLive ? html`<p class="warn"><strong>The draft is empty.</strong> Publishing it replaces the live prompt with nothing: calls would run with no prompt.</p>` : html`<p>Calls from now on use the draft prompt. The change:</p>`}
    <pre class="diff">${diff.map(([s, l]) => html`<span class=${s === '+' ? 'add' : 'del'}>${s} ${l}\n</span>`)}</pre>
    <button type="button" class=${emptiesLive ? 'danger' : ''} disabled=${busy} onClick=${onPublish}>${emptiesLive ? 'Replace the live prompt with the empty draft' : 'Publish now'}</button>
    <button type="button" onClick=${onCancel}>Cancel</button>
  </div>`
}

/**
 * A workflow agent's calls never use its prompt, welcome, LLM model or tools (the workflow greets
 * and decides), so its form puts them apart, closed, under a heading that says so.
 */
function AgentForm({ agent, providers, workflow, onSaved }) {
  const [form, setForm] = useState({
    name: agent.name,
    agentType: agent.agentType,
    promptDraft: agent.promptDraft ?? '',
    welcomeMessage: agent.welcome?.message ?? '',
    welcomeMode: agent.welcome?.mode ?? 'agent_speaks_first',
    endpointing: agent.endpointing ?? 'normal',
    llmModel: agent.llmModel ?? '',
    language: agent.language ?? '',
    voice: JSON.stringify(agent.voice ?? {}),
    enabledTools: (agent.enabledTools ?? []).join(', '),
    toolConfigs: JSON.stringify(agent.toolConfigs ?? {}),
    webhookUrl: agent.webhookUrl ?? '',
    knowledgeBaseIds: agent.knowledgeBaseIds ?? [],
    knowledgeAutoSearch: agent.knowledgeAutoSearch ?? false,
    vocabulary: (agent.vocabulary ?? []).join('\n'),
  })
  const [confirming, setConfirming] = useState(false)
  const { error, busy, run, fieldError } = useAction()
  const set = (k) => (e) => setForm({ ...form, [k]: e.target.value })
  const setValue = (k) => (v) => setForm((f) => ({ ...f, [k]: v }))
  const enabled = form.enabledTools.split(',').map((s) => s.trim()).filter(Boolean)
  const submit = (e) => {
    e.preventDefault()
    run(async () => {
      const voice = parseJson('voice', form.voice)
      const toolConfigs = parseJson('toolConfigs', form.toolConfigs)
      const body = {
        name: form.name,
        agentType: form.agentType,
        promptDraft: form.promptDraft,
        welcome: { ...agent.welcome, mode: form.welcomeMode, message: form.welcomeMessage },
        endpointing: form.endpointing,
        llmModel: form.llmModel || undefined,
        language: form.language || undefined,
        voice,
        enabledTools: form.enabledTools.split(',').map((s) => s.trim()).filter(Boolean),
        toolConfigs,
        webhookUrl: form.webhookUrl || null,
        knowledgeBaseIds: form.knowledgeBaseIds,
        knowledgeAutoSearch: form.knowledgeAutoSearch,
        vocabulary: form.vocabulary.split('\n').map((s) => s.trim()).filter(Boolean),
      }
      onSaved((await put(`/api/agents/${agent.id}`, body)).agent)
    })
  }
  const diff = lineDiff(agent.promptPublished, agent.promptDraft)
  const publish = () => run(async () => {
    setConfirming(false)
    onSaved((await post(`/api/agents/${agent.id}/publish`)).agent)
  })
  const emptyDraft = !(agent.promptDraft ?? '').trim() && (agent.promptPublished ?? '').trim()
  const byWorkflow = agent.readiness?.brain === 'workflow'
  // never shown for a workflow agent's calls: the workflow speaks and decides
  const conversation = html`
    <${Field} label="Prompt (draft)" name="promptDraft" as="textarea" rows="6" value=${form.promptDraft} onInput=${set('promptDraft')} error=${fieldError('promptDraft')} />
    <${PromptVariables} texts=${[form.promptDraft, form.welcomeMessage]} agentType=${form.agentType} />
    ${emptyDraft && !form.promptDraft ? html`<p class="hint">The draft is empty; calls use the live prompt.
      <button type="button" onClick=${() => setForm({ ...form, promptDraft: agent.promptPublished })}>Start the draft from the live prompt</button></p>` : null}
    <${Field} label="Welcome mode" name="welcomeMode" as="select" value=${form.welcomeMode} onChange=${set('welcomeMode')} error=${fieldError('welcome.mode')}>
      <option value="agent_speaks_first">agent speaks first</option><option value="user_speaks_first">caller speaks first</option>
    <//>
    <${Field} label="Welcome message" name="welcomeMessage" value=${form.welcomeMessage} onInput=${set('welcomeMessage')} error=${fieldError('welcome.message')} />
    ${providers ? html`<${ModelSelect} providers=${providers} value=${form.llmModel} onChange=${setValue('llmModel')} error=${fieldError('llmModel')} />` : null}
    ${providers ? html`<${ToolFields} tools=${providers.tools ?? []} enabled=${enabled} configsText=${form.toolConfigs}
      onEnabled=${(names) => setValue('enabledTools')(names.join(', '))} onConfigsText=${setValue('toolConfigs')}
      errorFor=${(name) => nested(error, `toolConfigs.${name}`) ?? (enabled.includes(name) ? fieldError(`enabledTools[${enabled.indexOf(name)}]`) : undefined)} />` : null}`
  return html`<form class="card" onSubmit=${submit} aria-label="Edit the agent">
    ${byWorkflow ? html`<${WorkflowRuns} agentId=${agent.id} workflow=${workflow} />` : null}
    <${Field} label="Name" name="name" value=${form.name} onInput=${set('name')} error=${fieldError('name')} />
    <${Field} label="Type" name="agentType" as="select" value=${form.agentType} onChange=${set('agentType')} error=${fieldError('agentType')}>
      <option value="inbound">inbound</option><option value="outbound">outbound</option>
    <//>
    ${byWorkflow ? html`<details class="advanced without-workflow">
      <summary>Not used while the workflow runs calls: prompt, welcome, LLM model and tools</summary>
      <p class="hint">They take over only if the workflow is removed, for an LLM conversation.</p>
      ${conversation}
    </details>` : conversation}
    <${EndpointingFields} value=${form.endpointing} onChange=${setValue('endpointing')} error=${fieldError('endpointing')} />
    <${Field} label="Language" name="language" value=${form.language} onInput=${set('language')} error=${fieldError('language')} />
    ${providers ? html`<${VoiceFields} providers=${providers} voiceText=${form.voice} onVoiceText=${setValue('voice')} error=${nested(error, 'voice')} />` : null}
    <${VoicePreview} agentId=${agent.id} voiceText=${form.voice} />
    <${KnowledgeFields} linked=${form.knowledgeBaseIds} autoSearch=${form.knowledgeAutoSearch} fields=${error?.fields}
      onLinked=${setValue('knowledgeBaseIds')} onAutoSearch=${setValue('knowledgeAutoSearch')} />
    <${VocabularyFields} text=${form.vocabulary} onText=${setValue('vocabulary')} fields=${error?.fields} />
    <details class="advanced">
      <summary>Advanced: raw JSON</summary>
      <${Field} label="LLM model (any accepted name)" name="llmModel" value=${form.llmModel} onInput=${set('llmModel')} error=${fieldError('llmModel')} />
      <${Field} label="Voice (JSON)" name="voice" value=${form.voice} onInput=${set('voice')} error=${nested(error, 'voice')} />
      <${Field} label="Enabled tools (comma separated)" name="enabledTools" value=${form.enabledTools} onInput=${set('enabledTools')} error=${fieldError('enabledTools')} />
      <${Field} label="Tool configs (JSON, by tool name)" name="toolConfigs" as="textarea" rows="3" value=${form.toolConfigs} onInput=${set('toolConfigs')} error=${nested(error, 'toolConfigs')} />
    </details>
    <${Field} label="Webhook URL" name="webhookUrl" value=${form.webhookUrl} onInput=${set('webhookUrl')} error=${fieldError('webhookUrl')} />
    ${error && !Object.keys(error.fields ?? {}).length ? html`<${Problem} error=${error} />` : null}
    <div class="actions">
      <button type="submit" disabled=${busy}>Save</button>
      <button type="button" disabled=${busy || !diff.length} onClick=${() => setConfirming(true)}>Publish draft</button>
    </div>
    ${confirming ? html`<${PublishConfirm} agent=${agent} diff=${diff} busy=${busy} onPublish=${publish} onCancel=${() => setConfirming(false)} />` : null}
    <details open=${diff.length > 0}>
      <summary>Draft vs published (${diff.length} changed lines)</summary>
      <pre class="diff">${diff.map(([s, l]) => html`<span class=${s === '+' ? 'add' : 'del'}>${s} ${l}\n</span>`)}</pre>
    </details>
  </form>`
}

export function AgentPage({ id }) {
  const { data, error, reload } = useData(() => get(`/api/agents/${id}`), [id])
  const providers = useData(() => get('/api/providers'))
  // the page stays mounted from one agent to the next: until this one loads, data holds the last one
  const agent = data?.agent?.id === id ? data.agent : undefined
  const byWorkflow = agent?.readiness?.brain === 'workflow'
  const workflow = useData(() => (byWorkflow ? get(`/api/agents/${id}/workflow`) : Promise.resolve(undefined)), [id, byWorkflow])
  if (!agent) return html`<h1>Agent</h1><${Problem} error=${error} />`
  const remove = async () => {
    if (!confirm(`Delete agent ${agent.name}?`)) return
    await del(`/api/agents/${id}`)
    location.hash = '#/agents'
  }
  // a workflow agent's calls never read the draft prompt: its unsaved graph is tested in the workflow editor
  return html`<h1>Agent: ${agent.name}</h1>
    <${Readiness} readiness=${agent.readiness} />
    <p><a href=${`#/agents/${id}/workflow`}>Workflow and test-run</a></p>
    <${BrowserCall} agentId=${id} draftLabel=${byWorkflow ? '' : 'Test the draft: run the draft prompt (saved, not yet published)'} />
    <${AgentForm} key=${agent.updatedAt + (providers.data ? '+' : '')} agent=${agent} providers=${providers.data} workflow=${workflow.data?.workflow} onSaved=${reload} />
    <button class="danger" onClick=${remove}>Delete agent</button>`
}
