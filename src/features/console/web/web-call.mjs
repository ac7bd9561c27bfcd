// A call to an agent from this browser: the microphone and one RTCPeerConnection, signalled over
// the API with the signed-in key (POST the offer, set the answer, DELETE to hang up), with a
// WebAudio analyser on each direction for the level meters.
//
// ICE: the offer must exist before the appliance says which STUN/TURN servers it uses, so the
// first call gathers host candidates only (iceServers: []); the servers an answer names
// (WEBRTC_ICE_SERVERS) are kept for the next call from this page. Gathering is awaited (at most
// GATHER_MS) so the offer carries the candidates; any found later are trickled.
import { api, post } from './api.mjs'

const GATHER_MS = 2000
let iceServers = []

/** Resolves once ICE gathering is complete, or after `ms`. */
function gathered(pc, ms) {
  return new Promise((resolve) => {
    if (pc.iceGatheringState === 'complete') return resolve()
    const done = () => {
      clearTimeout(timer)
      pc.removeEventListener('icegatheringstatechange', check)
      resolve()
    }
    const check = () => pc.iceGatheringState === 'complete' && done()
    const timer = setTimeout(done, ms)
    pc.addEventListener('icegatheringstatechange', check)
  })
}

/** The loudness of an analyser's latest window on a 0..1 scale: -60 dBFS or less is 0, full scale is 1. */
function level(analyser, buf) {
  if (!analyser) return 0
  analyser.getFloatTimeDomainData(buf)
  let sum = 0
  for (const v of buf) sum += v * v
  const rms = Math.sqrt(sum / buf.length)
  return rms > 0 ? Math.max(0, Math.min(1, (20 * Math.log10(rms) + 60) / 60)) : 0
}

/**
 * Starts a call to agent `agentId`; `body` adds `draft` and `workflow` to the offer's POST.
 * Resolves once the answer is set; `levels()` reads both meters, `hangUp()` ends the call,
 * `close()` only releases the microphone, the peer and the audio (after the agent hung up).
 */
export async function startWebCall(agentId, body = {}) {
  const mic = await navigator.mediaDevices.getUserMedia({ audio: true })
  const audio = new AudioContext()
  const pc = new RTCPeerConnection({ iceServers })
  const player = new Audio()
  player.autoplay = true
  const buf = new Float32Array(1024)
  const analyser = (stream) => {
    const a = audio.createAnalyser()
    a.fftSize = buf.length
    audio.createMediaStreamSource(stream).connect(a)
    return a
  }
  const micAnalyser = analyser(mic)
  let agentAnalyser
  let callId
  let offered = false
  const late = []
  const base = `/api/agents/${encodeURIComponent(agentId)}/web-calls`
  const trickle = (c) => post(`${base}/${callId}/candidates`, c ? { candidate: c.candidate, sdpMid: c.sdpMid, sdpMLineIndex: c.sdpMLineIndex } : { candidate: null }).catch(() => {})
  pc.addEventListener('icecandidate', (e) => {
    if (!offered) return
    if (callId) trickle(e.candidate)
    else late.push(e.candidate)
  })
  pc.addEventListener('track', (e) => {
    const stream = e.streams[0] ?? new MediaStream([e.track])
    // Chromium feeds a remote track to WebAudio only while a media element plays it
    player.srcObject = stream
    agentAnalyser = analyser(stream)
  })
  const close = () => {
    pc.close()
    for (const t of mic.getTracks()) t.stop()
    player.srcObject = null
    audio.close().catch(() => {})
  }
  try {
    for (const track of mic.getAudioTracks()) pc.addTrack(track, mic)
    await pc.setLocalDescription(await pc.createOffer())
    await gathered(pc, GATHER_MS)
    offered = true
    const started = await post(base, { sdp: pc.localDescription.sdp, ...body })
    callId = started.callId
    iceServers = started.iceServers ?? []
    await pc.setRemoteDescription({ type: 'answer', sdp: started.sdp })
    for (const c of late.splice(0)) trickle(c)
    await audio.resume().catch(() => {})
    return {
      callId,
      pc,
      answer: started.sdp,
      levels: () => ({ mic: level(micAnalyser, buf), agent: level(agentAnalyser, buf) }),
      async hangUp() {
        try {
          await api('DELETE', `${base}/${callId}`)
        } finally {
          close()
        }
      },
      close,
    }
  } catch (e) {
    close()
    throw e
  }
}
