// The agent's first words on a real call: a raw SIP caller with its own RTP socket calls the
// appliance; the agent is silent for a moment after answering, then speaks its welcome. The
// welcome's first packet opens a new talk-spurt: marker bit, one timeline with the silence before.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { header, type SipMessage, type SipResponse } from '../../../src/realtime/telephony/sip/index.ts'
import { decodeG711 } from '../../../src/realtime/media/codec/index.ts'
import { startTestAppliance, type TestAppliance } from '../../helpers/appliance.ts'
import { setupCallTarget, waitForCall, type CallSetup } from '../../helpers/calls.ts'
import { RtpPeer } from '../../helpers/rtp-peer.ts'
import { SipPeer } from '../../helpers/sip-peer.ts'
import { startFakeOpenAi, type FakeOpenAi } from '../../fakes/openai.ts'

let t: TestAppliance
let llm: FakeOpenAi
let target: CallSetup

beforeAll(async () => {
  llm = startFakeOpenAi()
  t = await startTestAppliance({ LLM_PROVIDER: 'openai', LLM_BASE_URL: llm.url, LLM_API_KEY: 'test', TTS_PROVIDER: 'flite' })
  target = await setupCallTarget(t, { agent: { welcome: { mode: 'agent_speaks_first', message: 'Hello, thanks for calling.', delayMs: 600 } } })
})

afterAll(async () => {
  await t?.stop()
  llm?.stop()
})

const peak = (payload: Uint8Array) => decodeG711('ulaw', payload).reduce((m, s) => Math.max(m, Math.abs(s)), 0)

test('on a SIP call the first packet of the agent speaking after silence carries the marker bit and continues the timeline', async () => {
  const rtp = await RtpPeer.open()
  const sip = await SipPeer.udp(t.appliance.sip.udp!)
  const callId = `talkspurt-${Date.now()}`
  const user = target.e164.slice(1)
  const request = (method: string, cseq: number, toTag = '', body = '') =>
    [
      `${method} sip:${user}@127.0.0.1:${t.appliance.sip.udp} SIP/2.0`,
      `Via: SIP/2.0/UDP 127.0.0.1:${sip.port};branch=z9hG4bK${method}${Math.random().toString(36).slice(2)};rport`,
      'Max-Forwards: 70',
      `From: <sip:caller@127.0.0.1:${sip.port}>;tag=caller1`,
      `To: <sip:${user}@127.0.0.1>${toTag ? `;tag=${toTag}` : ''}`,
      `Call-ID: ${callId}`,
      `CSeq: ${cseq} ${method}`,
      `Contact: <sip:caller@127.0.0.1:${sip.port}>`,
      ...(body ? ['Content-Type: application/sdp'] : []),
      `Content-Length: ${Buffer.byteLength(body)}`,
      '',
      body,
    ].join('\r\n')
  const sdp = `v=0\r\no=- 1 1 IN IP4 127.0.0.1\r\ns=-\r\nc=IN IP4 127.0.0.1\r\nt=0 0\r\nm=audio ${rtp.port} RTP/AVP 0\r\na=rtpmap:0 PCMU/8000\r\na=sendrecv\r\n`
  try {
    sip.send(request('INVITE', 1, '', sdp))
    const ok = (await sip.waitFor((m: SipMessage) => m.kind === 'response' && m.status === 200, 10_000)) as SipResponse
    const toTag = /tag=([^;>\s]+)/.exec(header(ok, 'to')!)![1]!
    sip.send(request('ACK', 1, toTag))
    // silence first (the welcome's delay), then the welcome's audio
    await rtp.waitFor(() => rtp.received.some((r) => peak(r.packet.payload) > 1000), 15_000)
    await rtp.waitFor(() => rtp.received.length >= rtp.received.findIndex((r) => peak(r.packet.payload) > 1000) + 10)
    const got = rtp.received.map((r) => r.packet)
    const firstLoud = got.findIndex((p) => peak(p.payload) > 1000)
    expect(firstLoud).toBeGreaterThan(5)
    expect(got[0]!.marker).toBe(true)
    // the talk-spurt may open with a quiet packet of the speech: one marker from the silence on
    const markers = got.slice(1, firstLoud + 1).flatMap((p, i) => (p.marker ? [i + 1] : []))
    expect(markers.length).toBe(1)
    const spurt = markers[0]!
    expect(spurt).toBeGreaterThan(5)
    expect(got.slice(spurt + 1, spurt + 10).some((p) => p.marker)).toBe(false)
    const window = got.slice(spurt - 5, spurt + 10)
    expect(new Set(window.slice(1).map((p, i) => (p.timestamp - window[i]!.timestamp) >>> 0))).toEqual(new Set([160]))
    expect(new Set(window.slice(1).map((p, i) => (p.sequenceNumber - window[i]!.sequenceNumber + 0x10000) & 0xffff))).toEqual(new Set([1]))
    sip.send(request('BYE', 2, toTag))
    await sip.waitFor((m: SipMessage) => m.kind === 'response' && m.status === 200 && header(m, 'cseq') === '2 BYE')
    const call = await waitForCall(t, (c) => c.to === target.e164 && c.status === 'ended')
    expect(call.endReason).toBe('caller_hangup')
  } finally {
    sip.close()
    rtp.close()
  }
}, 30_000)
