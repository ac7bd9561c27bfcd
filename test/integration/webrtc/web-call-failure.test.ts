// Issue 44, media diagnostics of web calls: a browser call that fails says why, on the record
// (endReason and media.web.failure), in the export and in the call_end line, logged at warn.
// The browser is a werift peer on 127.0.0.1 that leaves after its offer (ICE cannot succeed) or
// connects and never sends audio (no media).
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { startTestAppliance, memberKey, type TestAppliance } from '../../helpers/appliance.ts'
import { waitForCall } from '../../helpers/calls.ts'
import { until } from '../../helpers/until.ts'
import { gatheredOffer, loopbackPeer } from '../../helpers/loopback-peer.ts'
import { startFakeOpenAi, type FakeOpenAi } from '../../fakes/openai.ts'

let t: TestAppliance
let llm: FakeOpenAi
let agentId: string
let key: string
const lines: any[] = []

beforeAll(async () => {
  llm = startFakeOpenAi()
  t = await startTestAppliance(
    { LOG_LEVEL: 'info', WEBRTC_HOST_ADDRESSES: '127.0.0.1', WEB_CALL_CONNECT_MS: 5000, RTP_TIMEOUT_MS: 1500, LLM_PROVIDER: 'openai', LLM_BASE_URL: llm.url, LLM_API_KEY: 'test' },
    undefined,
    { write: (line) => void lines.push(JSON.parse(line)) },
  )
  const agent = await t.api('POST', '/api/agents', { body: { name: 'Web desk', welcome: { mode: 'user_speaks_first' } } })
  agentId = agent.body.agent.id
  key = (await memberKey(t, 'web@example.com')).key
})

afterAll(async () => {
  await t?.stop()
  llm?.stop()
})

async function offer(sdp: string): Promise<{ callId: string; sdp: string }> {
  const res = await fetch(`${t.url}/api/agents/${agentId}/web-calls`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ sdp }),
  })
  expect(res.status).toBe(201)
  return (await res.json()) as { callId: string; sdp: string }
}

async function endedWith(callId: string) {
  await waitForCall(t, (c) => c.id === callId && c.status === 'ended', 30_000)
  const call = (await t.api('GET', `/api/calls/${callId}`)).body.call
  await until(() => lines.some((l) => l.event === 'call_end' && l.callId === callId), 10_000, 'the call end line')
  return { call, line: lines.find((l) => l.event === 'call_end' && l.callId === callId) }
}

test('a browser that leaves after its offer: the call fails ice_failed, recorded, exported and warned about', async () => {
  const { pc } = loopbackPeer()
  const sdp = await gatheredOffer(pc)
  // its sockets close before any connectivity check can be answered
  await pc.close()
  const { callId } = await offer(sdp)
  const { call, line } = await endedWith(callId)
  expect(call).toMatchObject({ type: 'web', outcome: 'failed', endReason: 'ice_failed' })
  expect(call.media).toMatchObject({ codec: 'opus/48000', packetsReceived: 0, web: { ice: 'failed', dtls: 'new', failure: 'ice_failed' } })
  expect((await t.api('GET', `/api/calls/${callId}/export`)).body.media).toEqual(call.media)
  expect(line).toMatchObject({ level: 40, failure: 'ice_failed', outcome: 'failed', reason: 'ice_failed', msg: 'web call failed: ice_failed' })
}, 60_000)

test('a browser whose certificate is not the one its offer named: ICE connects, DTLS does not, the call fails dtls_failed', async () => {
  const { pc } = loopbackPeer()
  try {
    const sdp = await gatheredOffer(pc)
    // the fingerprint of another certificate: the appliance must refuse the handshake
    const forged = sdp.replace(/(a=fingerprint:sha-256 )([0-9A-F:]+)/i, (_m, head: string, hex: string) => head + hex.split(':').map((b) => (255 - parseInt(b, 16)).toString(16).padStart(2, '0').toUpperCase()).join(':'))
    expect(forged).not.toBe(sdp)
    const started = await offer(forged)
    await pc.setRemoteDescription({ type: 'answer', sdp: started.sdp })
    const { call, line } = await endedWith(started.callId)
    expect(call).toMatchObject({ type: 'web', outcome: 'failed', endReason: 'dtls_failed' })
    expect(call.media).toMatchObject({ packetsReceived: 0, web: { ice: 'connected', dtls: 'failed', failure: 'dtls_failed' } })
    expect(line).toMatchObject({ level: 40, failure: 'dtls_failed' })
  } finally {
    await pc.close()
  }
}, 60_000)

test('a browser that connects and never sends audio: the call fails no_media once RTP_TIMEOUT_MS has passed', async () => {
  const { pc } = loopbackPeer()
  try {
    const started = await offer(await gatheredOffer(pc))
    await pc.setRemoteDescription({ type: 'answer', sdp: started.sdp })
    const { call, line } = await endedWith(started.callId)
    expect(call).toMatchObject({ type: 'web', outcome: 'failed', endReason: 'no_media' })
    expect(call.media).toMatchObject({ packetsReceived: 0, web: { ice: 'connected', dtls: 'connected', failure: 'no_media' } })
    expect(call.media.packetsSent).toBeGreaterThan(0)
    // DTLS-SRTP keyed the media, by the name SDES gives the same suite
    expect(['AES_CM_128_HMAC_SHA1_80', 'AEAD_AES_128_GCM']).toContain(call.media.srtpSuite)
    expect(line).toMatchObject({ level: 40, failure: 'no_media' })
  } finally {
    await pc.close()
  }
}, 60_000)
