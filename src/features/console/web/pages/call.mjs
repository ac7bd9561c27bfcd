// One call: the stereo recording (caller and agent lanes), the transcript following playback,
// per-turn latencies, cost, analysis, evaluations, labels, export and delete.
import { useEffect, useRef, useState } from 'preact/hooks'
import WaveSurfer from 'wavesurfer.js'
import { api, del, get, post } from '../api.mjs'
import { LineChart } from '../chart.mjs'
import { Field, html, money, Problem, Status, useAction, useData, when } from '../ui.mjs'
import { callParties } from './calls.mjs'

// The console is served by the appliance it shows: the signed link's path and query reach the
// recording whatever host the link names (PUBLIC_HTTP_URL, or PUBLIC_HOST, which may be an
// address only the PBX side can reach).
const sameOrigin = (link) => {
  const u = new URL(link, location.href)
  return u.pathname + u.search
}

function Player({ url, transcript }) {
  const box = useRef()
  const audio = useRef()
  const ws = useRef()
  const [time, setTime] = useState(0)
  const [state, setState] = useState('loading')
  useEffect(() => {
    const w = WaveSurfer.create({ container: box.current, media: audio.current, url, splitChannels: [{ waveColor: '#1f6feb' }, { waveColor: '#b35900' }], height: 60, normalize: true })
    ws.current = w
    w.on('ready', () => setState('ready'))
    w.on('redrawcomplete', () => box.current?.setAttribute('data-painted', String(performance.now())))
    w.on('error', (e) => setState(`error: ${e?.message ?? e}`))
    w.on('timeupdate', (t) => setTime(t))
    return () => w.destroy()
  }, [url])
  const current = transcript.findLastIndex((t) => t.timestamp <= time + 0.05)
  return html`<section aria-label="Recording">
    <h2>Recording</h2>
    <p class="lanes"><span class="lane-caller">caller (top)</span> <span class="lane-agent">agent (bottom)</span> <span>${state === 'ready' ? '' : state}</span></p>
    <div class="wave" ref=${box} data-state=${state}></div>
    <audio ref=${audio} controls preload="auto" aria-label="Call recording"></audio>
    <h2>Transcript</h2>
    <ol class="transcript">
      ${transcript.map((t, i) => html`<li class=${`${t.role}${i === current ? ' current' : ''}`} aria-current=${i === current ? 'true' : undefined}>
        <button class="line" onClick=${() => ws.current?.setTime(t.timestamp)}>
          <span class="at">${t.timestamp.toFixed(1)} s</span> <span class="who">${t.role}</span> ${t.text}
        </button></li>`)}
    </ol>
  </section>`
}

const SERIES = [
  ['endpointingMs', 'endpointing', '#6e7781'],
  ['sttFinalMs', 'STT final', '#1f6feb'],
  ['llmTtftMs', 'LLM first token', '#8250df'],
  ['ttsTtfbMs', 'TTS first audio', '#b35900'],
  ['voiceToVoiceMs', 'voice to voice', '#1a7f37'],
]

function LatencyChart({ turns }) {
  if (!turns.length) return html`<p>No caller turn was measured.</p>`
  return html`<${LineChart} title="Latency per caller turn (ms)" xLabel="turn" yLabel="ms" x=${turns.map((_, i) => i + 1)}
    series=${SERIES.map(([k, label, stroke]) => ({ label, stroke, values: turns.map((t) => t[k] ?? null) }))}
    summary=${turns.map((t, i) => `turn ${i + 1}: voice to voice ${t.voiceToVoiceMs ?? '-'} ms`).join('; ')} />`
}

function Labels({ call, onChange }) {
  const [label, setLabel] = useState('')
  const { error, run, fieldError } = useAction()
  const add = (e) => {
    e.preventDefault()
    run(async () => {
      await post(`/api/calls/${call.id}/labels`, { label })
      setLabel('')
      onChange()
    })
  }
  const remove = (l) => run(async () => {
    await api('DELETE', `/api/calls/${call.id}/labels/${encodeURIComponent(l)}`)
    onChange()
  })
  return html`<section aria-label="Labels"><h2>Labels</h2>
    <ul class="labels">${call.labels.map((l) => html`<li>${l} <button class="link" aria-label=${`Remove label ${l}`} onClick=${() => remove(l)}>×</button></li>`)}</ul>
    <form onSubmit=${add} class="inline">
      <${Field} label="New label" name="label" value=${label} onInput=${(e) => setLabel(e.target.value)} error=${fieldError('label') ?? (error && !Object.keys(error.fields).length ? error.message : undefined)} />
      <button type="submit">Add label</button>
    </form></section>`
}

function Evaluations({ call, onChange }) {
  const [form, setForm] = useState({ score: '', evaluatorName: '', comment: '' })
  const { run, fieldError, error } = useAction()
  const set = (k) => (e) => setForm({ ...form, [k]: e.target.value })
  const add = (e) => {
    e.preventDefault()
    run(async () => {
      await post(`/api/calls/${call.id}/evaluations`, { score: Number(form.score), ...(form.evaluatorName ? { evaluatorName: form.evaluatorName } : {}), ...(form.comment ? { comment: form.comment } : {}) })
      setForm({ score: '', evaluatorName: '', comment: '' })
      onChange()
    })
  }
  return html`<section aria-label="Evaluations"><h2>Evaluations</h2>
    <ul class="evaluations">${call.evaluations.map((ev) => html`<li><strong>${ev.score}/100</strong> ${ev.type} by ${ev.evaluatorName || 'someone'}${ev.comment ? `: ${ev.comment}` : ''}</li>`)}</ul>
    <form onSubmit=${add} class="inline" aria-label="Add a manual evaluation">
      <${Field} label="Score (0-100)" name="score" type="number" value=${form.score} onInput=${set('score')} error=${fieldError('score')} />
      <${Field} label="Evaluator" name="evaluatorName" value=${form.evaluatorName} onInput=${set('evaluatorName')} error=${fieldError('evaluatorName')} />
      <${Field} label="Comment" name="comment" value=${form.comment} onInput=${set('comment')} error=${fieldError('comment')} />
      ${error && !Object.keys(error.fields).length ? html`<${Problem} error=${error} />` : null}
      <button type="submit">Add evaluation</button>
    </form></section>`
}

/**
 * Deleting a call removes its record; the recording file stays unless asked (the API's default),
 * and the dialog says which will happen before anything is deleted.
 */
function DeleteCall({ id, hasRecording, onCancel }) {
  const [withRecording, setWithRecording] = useState(false)
  const { error, busy, run } = useAction()
  const remove = () => run(async () => {
    await del(`/api/calls/${id}${withRecording ? '?deleteRecording=true' : ''}`)
    location.hash = '#/calls'
  })
  return html`<div class="confirm" role="alertdialog" aria-label="Delete this call">
    <p>This deletes the call's record for good: its transcript, analysis, evaluations, labels and webhook deliveries.</p>
    ${hasRecording ? html`
      <label class="check"><input type="checkbox" name="deleteRecording" checked=${withRecording} onChange=${(e) => setWithRecording(e.target.checked)} /> Delete the recording too</label>
      <p class="delete-outcome"><strong>${withRecording
        ? 'The recording file is deleted first, then the record.'
        : 'The recording file stays on the appliance (its disk or bucket) with nothing linking to it; retention or "voice-agent recordings gc" removes it later.'}</strong></p>`
      : html`<p class="delete-outcome">This call has no recording.</p>`}
    <${Problem} error=${error} />
    <button type="button" class="danger" disabled=${busy} onClick=${remove}>${withRecording ? 'Delete the call and its recording' : 'Delete the call'}</button>
    <button type="button" onClick=${onCancel}>Cancel</button>
  </div>`
}

async function exportJson(id) {
  const doc = await get(`/api/calls/${id}/export`)
  const a = document.createElement('a')
  a.href = URL.createObjectURL(new Blob([JSON.stringify(doc, null, 2)], { type: 'application/json' }))
  a.download = `${id}.json`
  a.click()
  setTimeout(() => URL.revokeObjectURL(a.href), 1000)
}

/** The call's agent by the name it had then, linked while the agent exists; a deleted one says so. */
function AgentOf({ call }) {
  const name = call.agentName ?? call.agentId ?? 'none'
  if (!call.agentId) return html`no agent`
  if (call.agentDeleted) return html`agent ${name} (deleted)`
  return html`agent <a href=${`#/agents/${call.agentId}`}>${name}</a>`
}

const WEB_FAILURES = {
  ice_failed: 'no ICE candidate pair succeeded: check the host candidates, the UDP ports and TURN',
  dtls_failed: 'ICE connected but the DTLS handshake did not finish',
  no_media: 'connected, but no audio came from the browser',
}

/** The call's media as it went: what an operator chasing one-way audio looks at first. */
function Media({ media }) {
  if (!media) return html`<section aria-label="Media"><h2>Media</h2><p>No media facts (the call is in progress or had no media).</p></section>`
  const rows = [
    ['codec', media.codec],
    ['remote media', `${media.remoteAddress}:${media.remotePort}`],
    ['SRTP', media.srtpSuite ?? 'none'],
    ['sent', `${media.packetsSent} packets, ${media.bytesSent} bytes`],
    ['received', `${media.packetsReceived} packets, ${media.bytesReceived} bytes`],
    ['lost / late / discarded', `${media.packetsLost} / ${media.packetsLate} / ${media.packetsDiscarded}`],
    ['jitter', `${media.jitterMs} ms`],
    ['largest gap', `${media.maxGapMs} ms`],
  ]
  if (media.web) rows.push(['ICE / DTLS', `${media.web.ice} / ${media.web.dtls}`])
  return html`<section aria-label="Media"><h2>Media</h2>
    ${media.web?.failure ? html`<p class="problem" role="alert">Failed: ${media.web.failure} (${WEB_FAILURES[media.web.failure] ?? ''})</p>` : null}
    ${media.packetsReceived === 0 && !media.web?.failure ? html`<p class="problem">No audio came from the far end.</p>` : null}
    <dl class="grid">${rows.map(([k, v]) => html`<dt>${k}</dt><dd>${v}</dd>`)}</dl>
  </section>`
}

export function CallPage({ id }) {
  const { data, error, reload } = useData(() => get(`/api/calls/${id}`), [id])
  const call = data?.call
  const ended = call?.status === 'ended'
  // the export document carries what the call row does not: a signed recording link an <audio>
  // element can fetch without the key, the analysis, evaluations and labels
  const doc = useData(() => (ended ? get(`/api/calls/${id}/export`) : Promise.resolve(undefined)), [id, ended])
  useEffect(() => {
    if (!call || ended) return
    const t = setInterval(reload, 2000)
    return () => clearInterval(t)
  }, [call?.status])
  const action = useAction()
  const [deleting, setDeleting] = useState(false)
  if (!call) return html`<h1>Call</h1><${Problem} error=${error} />`
  const d = doc.data
  const cost = call.cost ?? {}
  const a = d?.analysis
  const transcript = call.transcript ?? []
  const parties = callParties(call)
  return html`<h1>Call ${parties.from} → ${parties.to}</h1>
    <p><${Status} value=${call.status} />${call.testDraft ? html` <span class="status status-draft">draft test</span>` : null} ${call.outcome ?? ''} ${call.endReason ? `(${call.endReason})` : ''} · ${call.type} · ${call.duration ?? 0} s · started ${when(call.startedAt)} · <${AgentOf} call=${call} /></p>
    <div class="actions">
      <button onClick=${() => action.run(() => exportJson(id))} disabled=${!ended}>Export JSON</button>
      <button class="danger" onClick=${() => setDeleting(true)} disabled=${!ended}>Delete call</button>
    </div>
    ${deleting ? html`<${DeleteCall} id=${id} hasRecording=${Boolean(d?.recordingUrl)} onCancel=${() => setDeleting(false)} />` : null}
    <${Problem} error=${action.error ?? doc.error} />
    ${d?.recordingUrl ? html`<${Player} url=${sameOrigin(d.recordingUrl)} transcript=${transcript} />` : html`<p>${ended ? (d ? 'No recording.' : 'Loading…') : 'The call is in progress.'}</p>
      <h2>Transcript</h2>
      <ol class="transcript">${transcript.map((t) => html`<li class=${t.role}><span class="who">${t.role}</span> ${t.text}</li>`)}</ol>`}
    <section aria-label="Latency"><h2>Latency</h2>
      ${call.metrics?.latencyP50 > 0 || (call.metrics?.turns ?? []).some((t) => typeof t.voiceToVoiceMs === 'number')
        ? html`<p>voice to voice p50 ${call.metrics.latencyP50} ms, p99 ${call.metrics.latencyP99} ms</p>`
        : html`<p>No turn was measured.</p>`}
      <${LatencyChart} turns=${call.metrics?.turns ?? []} />
    </section>
    <${Media} media=${call.media} />
    <section aria-label="Cost"><h2>Cost</h2>
      <dl class="grid">${['llm', 'stt', 'tts', 'telephony', 'analysis', 'total'].map((k) => html`<dt>${k}</dt><dd>${money(cost[k] ?? 0)}</dd>`)}</dl>
    </section>
    ${d ? html`<section aria-label="Analysis"><h2>Analysis</h2>
      ${a ? html`<p>${a.status ?? ''}${a.sentiment ? ` · ${a.sentiment}` : ''}${a.isVoicemail ? ' · voicemail' : ''}</p><p>${a.summary}</p>` : html`<p>None yet.</p>`}
    </section>
    <${Labels} call=${{ id, labels: d.labels ?? [] }} onChange=${doc.reload} />
    <${Evaluations} call=${{ id, evaluations: d.evaluations ?? [] }} onChange=${doc.reload} />` : null}`
}
