// "Call from browser": talk to an agent through this browser's microphone. While the call lives
// the panel shows both audio levels, the live transcript and each turn's latency (the live view,
// read every 500 ms, whose figures fill in as each answer starts); at the end the call record's
// transcript and latencies and a link to the call's page. "Test the draft" runs what `draftBody`
// names (the draft prompt, or the unsaved workflow too), and such a call is marked testDraft.
import { useEffect, useRef, useState } from 'preact/hooks'
import { get } from '../api.mjs'
import { html, Problem } from '../ui.mjs'
import { startWebCall } from '../web-call.mjs'

const POLL_MS = 500
const LEVEL_MS = 100

/** Why a web call failed, as its record says (media.web.failure), for the person who made it. */
const FAILURES = {
  ice_failed: 'no network path to the appliance was found (ICE failed). On the same machine, Chromium needs --allow-loopback-in-peer-connection; elsewhere check the UDP ports and TURN (docs/webrtc.md).',
  dtls_failed: 'the connection was found but its encryption (DTLS) did not start.',
  no_media: 'connected, but no audio came from this browser: check the microphone.',
}
const RECORD_TRIES = 10

const ms = (v) => (typeof v === 'number' ? `${Math.round(v)} ms` : 'not measured')

/** A 0..1 level meter; `data-peak` keeps the loudest level seen in this call. */
function Level({ label, value, peak }) {
  return html`<div class="level"><span>${label}</span>
    <meter min="0" max="1" low="0.25" high="0.9" optimum="0.5" value=${value} data-peak=${peak.toFixed(3)} aria-label=${label}>${Math.round(value * 100)}%</meter></div>`
}

const DraftBadge = () => html`<span class="status status-draft">draft test</span>`

export function BrowserCall({ agentId, draftLabel = 'Test the draft prompt', draftBody = () => ({ draft: true }) }) {
  const [testDraft, setTestDraft] = useState(false)
  const [phase, setPhase] = useState('idle')
  const [call, setCall] = useState()
  const [live, setLive] = useState()
  const [levels, setLevels] = useState({ mic: 0, agent: 0, micPeak: 0, agentPeak: 0 })
  const [error, setError] = useState()
  const current = useRef()
  // leaving the page hangs up
  useEffect(() => () => current.current?.hangUp().catch(() => {}), [])

  const finish = async (handle) => {
    if (current.current !== handle) return
    current.current = undefined
    handle.close()
    setPhase('ended')
    try {
      // the record is written as the call ends, a moment after the browser saw it end
      let stored = (await get(`/api/calls/${handle.callId}`)).call
      for (let i = 0; stored.status !== 'ended' && i < RECORD_TRIES; i++) {
        await new Promise((r) => setTimeout(r, POLL_MS))
        stored = (await get(`/api/calls/${handle.callId}`)).call
      }
      // the record is the account of the call from now on: its transcript and each turn's latency
      const recorded = stored.metrics?.turns ?? []
      setLive((v) => ({
        ...v,
        status: 'ended',
        failure: stored.media?.web?.failure ?? (stored.outcome === 'failed' ? stored.endReason : null),
        transcript: stored.transcript?.length ? stored.transcript : (v?.transcript ?? []),
        turns: recorded.length ? recorded : (v?.turns ?? []),
      }))
    } catch {}
  }

  useEffect(() => {
    if (phase !== 'live' || !call) return
    const handle = call.handle
    const poll = () => get(`/api/agents/${encodeURIComponent(agentId)}/web-calls/${handle.callId}`).then(
      (v) => {
        if (current.current !== handle) return
        setLive(v)
        if (v.status === 'ended') finish(handle)
      },
      (e) => e?.status === 404 && finish(handle),
    )
    const onState = () => ['failed', 'closed'].includes(handle.pc.connectionState) && finish(handle)
    handle.pc.addEventListener('connectionstatechange', onState)
    const meters = setInterval(() => {
      const now = handle.levels()
      setLevels((l) => ({ ...now, micPeak: Math.max(l.micPeak, now.mic), agentPeak: Math.max(l.agentPeak, now.agent) }))
    }, LEVEL_MS)
    poll()
    const polling = setInterval(poll, POLL_MS)
    return () => {
      clearInterval(polling)
      clearInterval(meters)
      handle.pc.removeEventListener('connectionstatechange', onState)
    }
  }, [phase, call])

  const start = async () => {
    setError(undefined)
    setLive(undefined)
    setLevels({ mic: 0, agent: 0, micPeak: 0, agentPeak: 0 })
    setPhase('starting')
    try {
      const body = testDraft ? draftBody() : {}
      const handle = await startWebCall(agentId, body)
      current.current = handle
      setCall({ handle, draft: testDraft })
      setPhase('live')
    } catch (e) {
      setError(e)
      setPhase('idle')
    }
  }
  const hangUp = async () => {
    const handle = current.current
    if (!handle) return
    try {
      await handle.hangUp()
    } catch (e) {
      if (e?.status !== 404) setError(e)
    }
    finish(handle)
  }

  const busy = phase === 'starting' || phase === 'live'
  const transcript = live?.transcript ?? []
  const turns = live?.turns ?? []
  return html`<section class="card browser-call" aria-label="Talk to the agent">
    <h2>Talk to the agent</h2>
    <p class="hint">Uses this browser's microphone; the call is recorded and listed like a phone call (type web).</p>
    ${draftLabel ? html`<label class="check"><input type="checkbox" name="testDraft" checked=${testDraft} disabled=${busy} onChange=${(e) => setTestDraft(e.target.checked)} /> ${draftLabel}</label>` : null}
    <div class="actions">
      <button type="button" onClick=${start} disabled=${busy}>Call from browser</button>
      ${phase === 'live' ? html`<button type="button" class="danger" onClick=${hangUp}>Hang up</button>` : null}
    </div>
    <${Problem} error=${error} />
    ${phase === 'idle' && !call ? null : html`<div class="call-panel">
      <p role="status">${phase === 'starting' ? 'Connecting…' : phase === 'live' ? `In call (${live?.status ?? 'ringing'})` : live?.failure ? `The call failed (${live.failure}): ${FAILURES[live.failure] ?? 'see the call record.'}` : 'The call has ended.'}
        ${call?.draft ? html` <${DraftBadge} />` : null}</p>
      ${phase === 'live' ? html`<div class="levels">
        <${Level} label="Microphone level" value=${levels.mic} peak=${levels.micPeak} />
        <${Level} label="Agent level" value=${levels.agent} peak=${levels.agentPeak} />
      </div>` : null}
      <h3>Transcript</h3>
      <ol class="transcript" aria-label="Live transcript" aria-live="polite">
        ${transcript.map((t) => html`<li class=${t.role}><span class="who">${t.role}</span> ${t.text}</li>`)}
      </ol>
      <h3>Latency per turn</h3>
      ${turns.length ? html`<ol class="turns" aria-label="Turn latency">${turns.map((t, i) => html`<li>turn ${i + 1}: voice to voice ${ms(t.voiceToVoiceMs)}, response ${ms(t.responseMs)}</li>`)}</ol>` : html`<p>No caller turn yet.</p>`}
      ${phase === 'ended' && call ? html`<p><a href=${`#/calls/${call.handle.callId}`}>Open the call's page</a></p>` : null}
    </div>`}
  </section>`
}
