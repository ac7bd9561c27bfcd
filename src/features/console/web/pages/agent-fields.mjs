// An agent's voice, model and tools as form fields built from GET /api/providers. They read and
// write the same JSON text the advanced view shows, so the two views never disagree. Then the
// knowledge bases an agent links (their pages are knowledge.mjs), what runs a workflow agent's
// calls, and the {{variables}} its prompt uses.
import { get } from '../api.mjs'
import { Field, html, Problem, useData, when } from '../ui.mjs'

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

/** The agent's vocabulary, one word or phrase a line; each refused line is named with its problem. */
export function VocabularyFields({ text, onText, fields }) {
  const lines = text.split('\n').map((l) => l.trim()).filter(Boolean)
  const problems = lines.flatMap((l, i) => (fields?.[`vocabulary[${i}]`] ? [`"${l}" ${fields[`vocabulary[${i}]`]}`] : []))
  return html`<div class="field">
    <label for="vocabulary">Vocabulary (one word or phrase a line: names, products, streets callers say)</label>
    <textarea id="vocabulary" name="vocabulary" rows="4" value=${text} onInput=${(e) => onText(e.target.value)}></textarea>
    <p class="hint">The recognisers listen for these words: cloud ones as key terms or a prompt.</p>
    ${[...problems, ...(fields?.vocabulary ? [fields.vocabulary] : [])].map((p) => html`<p class="field-error" role="alert">${p}</p>`)}
  </div>`
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

/** What a workflow agent's calls get: the workflow speaks first with its start node, whatever the welcome says. */
export function WorkflowRuns({ agentId, workflow }) {
  const text = workflow?.nodes?.find((n) => n.type === 'start')?.config?.text
  return html`<section class="readiness ok" aria-label="How calls run">
    <p><strong>Calls are run by the workflow.</strong> ${text
      ? html`It greets first, with its start node: <q>${text}</q>`
      : workflow ? 'Its start node says nothing, so the caller speaks first.' : ''}</p>
    <p><a href=${`#/agents/${agentId}/workflow`}>Open the workflow</a> to change what it says and where the call goes.</p>
  </section>`
}

// the variables every call fills (callVariables in src/features/calls/conversation/profile.ts)
const BUILT_IN = ['caller_number', 'called_number', 'call_type', 'current_time', 'current_date']
const PLACEHOLDER = /\{\{\s*([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z0-9_]+)*)\s*\}\}/g

/** Pure: the {{names}} in `texts` that no call fills by itself, sorted. */
export function openVariables(...texts) {
  const names = new Set()
  for (const text of texts) for (const m of (text ?? '').matchAll(PLACEHOLDER)) if (!BUILT_IN.includes(m[1])) names.add(m[1])
  return [...names].sort()
}

/** Where the prompt's own {{variables}} come from; on an inbound agent, that nothing fills them. */
export function PromptVariables({ texts, agentType }) {
  const open = openVariables(...texts)
  if (!open.length) return null
  const list = open.map((n) => `{{${n}}}`).join(', ')
  return agentType === 'inbound'
    ? html`<p class="warn" role="note">${list}: an inbound call fills only ${BUILT_IN.join(', ')}, so callers get ${open.length > 1 ? 'these' : 'this'} empty. Write the words in instead.</p>`
    : html`<p class="hint">${list}: filled on each call from its dynamic variables (a campaign contact's column of that name); empty on a call without one.</p>`
}
