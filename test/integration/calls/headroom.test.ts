// Admission by headroom: with the capacity model saying the node is full, a new call of any kind
// is refused before it is answered (SIP 503 with Retry-After and no provisional ringing or 200;
// web calls and media streams 503 no_headroom), and /ready and /metrics show capacity, calls up
// and headroom. The model is injected: nothing here depends on this machine's speed.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { startTestAppliance, type TestAppliance } from '../../helpers/appliance.ts'
import { setupCallTarget, type CallSetup } from '../../helpers/calls.ts'
import { gatheredOffer, loopbackPeer } from '../../helpers/loopback-peer.ts'
import { inviteOnce } from '../../helpers/sip-invite.ts'
import { fixedCapacity } from '../../../src/features/calls/index.ts'
import { header } from '../../../src/realtime/telephony/sip/index.ts'

let t: TestAppliance
let target: CallSetup
const closers: (() => unknown)[] = []
const logLines: any[] = []

beforeAll(async () => {
  t = await startTestAppliance({ WEBRTC_HOST_ADDRESSES: '127.0.0.1', WEB_CALL_CONNECT_MS: 60_000, CALL_DRAIN_MS: 500, LOG_LEVEL: 'info' },
    undefined,
    { write: (line: string) => logLines.push(JSON.parse(line)) },
    { capacity: fixedCapacity(1) },
  )
  target = await setupCallTarget(t, { agent: { welcome: { mode: 'user_speaks_first' } } })
})

afterAll(async () => {
  for (const c of closers) await Promise.resolve(c()).catch(() => {})
  await t?.stop()
})

async function webCall() {
  const { pc } = loopbackPeer()
  closers.push(() => pc.close())
  const res = await fetch(`${t.url}/api/agents/${target.agentId}/web-calls`, {
    method: 'POST',
    headers: { authorization: `Bearer ${t.adminKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ sdp: await gatheredOffer(pc) }),
  })
  return { status: res.status, retryAfter: res.headers.get('retry-after'), body: (await res.json()) as any }
}

const ready = async () => ((await (await fetch(`${t.url}/ready`)).json()) as any).capacity
const metrics = async () => (await fetch(`${t.url}/metrics`)).text()

test('with no headroom a new call is refused before it is answered, over SIP, web and media stream, and /ready and /metrics show it', async () => {
  expect(await ready()).toEqual({ capacity: 1, callsUp: 0, headroom: 1 })
  // an unanswered web call holds the one place
  expect((await webCall()).status).toBe(201)
  expect(await ready()).toEqual({ capacity: 1, callsUp: 1, headroom: 0, limitedBy: 'CALLS_MAX' })

  const sip = await inviteOnce(t.appliance.sip.udp!, target.e164)
  closers.push(sip.close)
  expect(sip.final.status).toBe(503)
  expect(Number(header(sip.final, 'retry-after'))).toBeGreaterThan(0)
  // refused before it was answered: nothing rang, nothing was offered
  expect(sip.responses.filter((r) => r.status > 100 && r.status < 300)).toEqual([])
  expect(logLines.filter((l) => l.event === 'sip_refused')).toEqual([expect.objectContaining({ reason: 'no_headroom', status: 503, method: 'INVITE' })])

  const web = await webCall()
  expect(web.status).toBe(503)
  expect(web.body.error).toMatchObject({ code: 'not_ready', details: { reason: 'no_headroom' } })
  expect(Number(web.retryAfter)).toBeGreaterThan(0)
  // a second refusal of the same source and reason is counted, and summed up in the minute's line, not logged again
  expect((await webCall()).status).toBe(503)
  expect(logLines.filter((l) => l.event === 'call_refused')).toEqual([expect.objectContaining({ reason: 'no_headroom', method: 'web', status: 503, source: `workspace ${t.workspaceId}` })])

  const stream = await fetch(`${t.url}/api/agents/${target.agentId}/media-stream`, {
    headers: { authorization: `Bearer ${t.adminKey}`, upgrade: 'websocket', connection: 'Upgrade', 'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==', 'sec-websocket-version': '13' },
  })
  expect(stream.status).toBe(503)
  expect(((await stream.json()) as any).error.details.reason).toBe('no_headroom')

  const text = await metrics()
  expect(text).toMatch(/^voice_agent_capacity_calls 1$/m)
  expect(text).toMatch(/^voice_agent_headroom_calls 0$/m)
  expect(text).toMatch(/^voice_agent_calls_refused_total\{kind="inbound",reason="no_headroom"\} 1$/m)
  expect(text).toMatch(/^voice_agent_calls_refused_total\{kind="web",reason="no_headroom"\} 2$/m)
  expect(text).toMatch(/^voice_agent_sip_refused_total\{reason="no_headroom"\} 1$/m)
}, 60_000)
