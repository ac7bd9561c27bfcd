// Encrypted media with a real SRTP phone: baresip (Debian package, its srtp module) over TLS, in
// both directions, against numbers set to mediaEncryption "required". The conversation completes,
// both sides hear each other (baresip decrypts us, our recording holds both channels), and a
// tcpdump capture of the loopback holds no RTP whose payload is audio: only ciphertext.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { startLoggedAppliance } from '../../helpers/logged-appliance.ts'
import type { TestAppliance } from '../../helpers/appliance.ts'
import { answerWithBaresip, dialWithBaresip, selfSignedLoopbackCert, type BaresipPhone } from '../../helpers/baresip.ts'
import { setupCallTarget, waitForCall } from '../../helpers/calls.ts'
import { captureLoopback, inRange, rtpPayloadReport, type LoopbackCapture } from '../../helpers/loopback-capture.ts'
import type { PcapUdp } from '../../helpers/pcap.ts'
import { readStereoWav } from '../../helpers/media-call.ts'
import { InMemoryNumberDirectory } from '../../helpers/number-directory.ts'
import { loudWindows, phoneMicrophone } from '../../helpers/speech.ts'
import { startFakeDeepgram, type FakeDeepgram } from '../../fakes/deepgram.ts'
import { startFakeOpenAi, type FakeOpenAi } from '../../fakes/openai.ts'
import { parseWav } from '../../../src/realtime/voice/audio.ts'
import { UserAgent } from '../../../src/realtime/telephony/sip/index.ts'

let t: TestAppliance & { logs: string[] }
let llm: FakeOpenAi
let stt: FakeDeepgram
let dir: string
let tls: { certPath: string; keyPath: string }

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'srtp-interop-'))
  // one self-signed certificate for 127.0.0.1 serves our TLS listener and baresip's, and is trusted by both
  tls = selfSignedLoopbackCert(dir)
  llm = startFakeOpenAi()
  stt = startFakeDeepgram()
  t = await startLoggedAppliance({
    SIP_TLS_CERT_FILE: tls.certPath,
    SIP_TLS_KEY_FILE: tls.keyPath,
    SIP_TLS_CA_FILE: tls.certPath,
    STT_PROVIDER: 'deepgram',
    DEEPGRAM_BASE_URL: stt.url,
    DEEPGRAM_API_KEY: 'test-key',
    LLM_PROVIDER: 'openai',
    LLM_BASE_URL: llm.url,
    LLM_API_KEY: 'test-key',
    TTS_PROVIDER: 'flite',
  })
})

afterAll(async () => {
  await t?.stop()
  llm?.stop()
  stt?.stop()
  rmSync(dir, { recursive: true, force: true })
})

const microphone = (leadMs: number, words: string) => phoneMicrophone(words, leadMs, 9000)

async function requireSrtp(numberId: string): Promise<void> {
  const r = await t.api('PATCH', `/api/phone-numbers/${numberId}`, { body: { mediaEncryption: 'required' } })
  expect(r.status, JSON.stringify(r.body)).toBe(200)
  expect(r.body.phoneNumber.mediaEncryption).toBe('required')
}

/** What a listener on the path has of the call's audio: both directions between baresip and us are ciphertext. */
function expectOnlyCiphertext(packets: PcapUdp[], phone: BaresipPhone, summary: string): void {
  const theirs = inRange(phone.rtpPorts)
  const ours = (port: number) => !theirs(port)
  for (const [from, to] of [[ours, theirs], [theirs, ours]] as const) {
    const report = rtpPayloadReport(packets, from, to)
    expect(report.packets, `${from === ours ? 'to' : 'from'} baresip (RTP ports ${phone.rtpPorts.join('-')}), ${packets.length} UDP datagrams captured; tcpdump: ${summary}`).toBeGreaterThan(150)
    expect(report.silentPayloads).toBe(0)
    expect(report.entropy).toBeGreaterThan(7.9)
  }
}

/**
 * An encrypted conversation as both ends and the path saw it: the transcript, what baresip played
 * (it could only play what it decrypted), both channels of our recording, and a capture of the
 * loopback with only ciphertext in it.
 */
function expectEncryptedConversation(call: any, phone: BaresipPhone, packets: PcapUdp[], capture: LoopbackCapture, lines: [string, string][]): void {
  expect(call.transcript.map((i: any) => [i.role, i.text])).toEqual(lines)
  const heard = parseWav(readFileSync(phone.heardPath()))
  expect(loudWindows(heard.samples, heard.sampleRate / 10, -35)).toBeGreaterThan(15)
  expectBothChannelsAudible(call.id)
  expectOnlyCiphertext(packets, phone, capture.summary())
}

/** The call's recording: the far end (left) and the agent (right) both audible. */
function expectBothChannelsAudible(callId: string): void {
  const rec = readStereoWav(`${t.dataDir}/recordings/${callId}.wav`)
  expect(loudWindows(rec.left, rec.sampleRate / 10, -35)).toBeGreaterThan(8)
  expect(loudWindows(rec.right, rec.sampleRate / 10, -35)).toBeGreaterThan(8)
}

test('baresip calls a number set to required over TLS with SRTP: the conversation completes, both sides are heard, and the loopback carries no plain RTP', async () => {
  const target = await setupCallTarget(t, {
    trunkUri: 'sip:127.0.0.1:5999;transport=tls',
    transport: 'tls',
    agent: { welcome: { mode: 'agent_speaks_first', message: 'Hello, thanks for calling the clinic.' } },
  })
  await requireSrtp(target.numberId)
  stt.utterances.push('what are your opening hours')
  llm.chat.push({ text: '', toolCalls: [{ name: 'end_call', arguments: JSON.stringify({ message: 'We open at nine every weekday. Goodbye!' }) }], usage: { prompt: 50, completion: 10 } })

  const capture = await captureLoopback('udp')
  const phone = dialWithBaresip(`sip:${target.e164.slice(1)}@127.0.0.1:${t.appliance.sip.tls};transport=tls`, microphone(3500, 'what are your opening hours'), {
    account: ';mediaenc=srtp-mand',
    extraConfig: [`sip_cafile ${tls.certPath}`],
    timeoutSec: 40,
  })
  try {
    expect(await phone.saw('Call established'), phone.output()).toBe(true)
    expect(await phone.saw('session closed'), phone.output()).toBe(true)
    const call = await waitForCall(t, (c) => c.status === 'ended' && c.to === target.e164, 20_000)
    const packets = await capture.stop()
    expect(call).toMatchObject({ outcome: 'completed', endReason: 'agent_hangup', type: 'inbound' })
    expectEncryptedConversation(call, phone, packets, capture, [
      ['agent', 'Hello, thanks for calling the clinic.'],
      ['user', 'what are your opening hours'],
      ['agent', 'We open at nine every weekday. Goodbye!'],
    ])
  } finally {
    await capture.stop().catch(() => [])
    await phone.stop()
  }
}, 60_000)

test('POST /api/calls reaches baresip over TLS with SRTP (required): the conversation completes, both sides are heard, and the loopback carries no plain RTP', async () => {
  const phone = answerWithBaresip(microphone(4000, 'yes this is a good time'), tls, { user: '+14155550199', account: ';mediaenc=srtp-mand', timeoutSec: 40 })
  const capture = await captureLoopback('udp')
  try {
    const target = await setupCallTarget(t, {
      trunkUri: `sip:127.0.0.1:${phone.tlsPort};transport=tls`,
      transport: 'tls',
      direction: 'outbound',
      agent: { welcome: { mode: 'agent_speaks_first', message: 'Hello, this is the clinic calling about your appointment.' } },
    })
    await requireSrtp(target.numberId)
    stt.utterances.push('yes this is a good time')
    llm.chat.push({ text: '', toolCalls: [{ name: 'end_call', arguments: JSON.stringify({ message: 'Thank you, see you on Monday. Goodbye!' }) }], usage: { prompt: 50, completion: 10 } })

    const placed = await t.api('POST', '/api/calls', { body: { phoneNumberId: target.numberId, to: '+14155550199' } })
    expect(placed.status, JSON.stringify(placed.body)).toBe(200)
    const call = await waitForCall(t, (c) => c.id === placed.body.call.id && c.status === 'ended', 40_000)
    expect(await phone.saw('session closed'), phone.output()).toBe(true)
    const packets = await capture.stop()
    expect(call).toMatchObject({ outcome: 'completed', endReason: 'agent_hangup', type: 'outbound' })
    expectEncryptedConversation(call, phone, packets, capture, [
      ['agent', 'Hello, this is the clinic calling about your appointment.'],
      ['user', 'yes this is a good time'],
      ['agent', 'Thank you, see you on Monday. Goodbye!'],
    ])
  } finally {
    await capture.stop().catch(() => [])
    await phone.stop()
  }
}, 70_000)

test('a number set to required refuses a plain offer over TLS with 488 and logs why', async () => {
  const target = await setupCallTarget(t, { trunkUri: 'sip:127.0.0.1:5999;transport=tls', transport: 'tls' })
  await requireSrtp(target.numberId)
  const phone = dialWithBaresip(`sip:${target.e164.slice(1)}@127.0.0.1:${t.appliance.sip.tls};transport=tls`, microphone(500, 'hello'), {
    extraConfig: [`sip_cafile ${tls.certPath}`],
    timeoutSec: 20,
  })
  try {
    expect(await phone.saw('488 Not Acceptable Here'), phone.output()).toBe(true)
    const line = t.logs.find((l) => l.includes('inbound offer refused with 488') && l.includes(target.e164))
    expect(line).toBeDefined()
    expect(JSON.parse(line!).reason).toContain('plain RTP (RTP/AVP without a=crypto) and this call requires SRTP')
    const calls = (await t.api('GET', '/api/calls?limit=100')).body.calls as any[]
    expect(calls.filter((c) => c.to === target.e164)).toEqual([])
  } finally {
    await phone.stop()
  }
}, 30_000)

test('a callee without SRTP refuses the RTP/SAVP offer of a required call: the call ends failed (488), never answered', async () => {
  const phone = answerWithBaresip(microphone(500, 'hello'), tls, { user: '+14155550188', timeoutSec: 20 })
  try {
    const target = await setupCallTarget(t, { trunkUri: `sip:127.0.0.1:${phone.tlsPort};transport=tls`, transport: 'tls', direction: 'outbound' })
    await requireSrtp(target.numberId)
    const placed = await t.api('POST', '/api/calls', { body: { phoneNumberId: target.numberId, to: '+14155550188' } })
    expect(placed.status, JSON.stringify(placed.body)).toBe(200)
    const call = await waitForCall(t, (c) => c.id === placed.body.call.id && c.status === 'ended', 20_000)
    expect(call).toMatchObject({ outcome: 'failed', endReason: 'failed (488)', answeredAt: null, transcript: [] })
  } finally {
    await phone.stop()
  }
}, 30_000)

test('a callee that answers a required call with plain RTP gets a BYE: the call ends failed (media_not_acceptable) and the log says why', async () => {
  // a callee that answers anything with plain RTP/AVP, over TLS
  const callee = new UserAgent({
    host: '127.0.0.1', publicHost: '127.0.0.1', port: 0, tlsPort: 0, tlsCert: readFileSync(tls.certPath, 'utf8'), tlsKey: readFileSync(tls.keyPath, 'utf8'),
    directory: new InMemoryNumberDirectory([{ number: '14155550177', trunkSources: ['127.0.0.1'] }]),
  })
  await callee.start()
  try {
    callee.on('call', (incoming) => incoming.answer('v=0\r\no=- 1 1 IN IP4 127.0.0.1\r\ns=-\r\nc=IN IP4 127.0.0.1\r\nt=0 0\r\nm=audio 42000 RTP/AVP 0\r\na=rtpmap:0 PCMU/8000\r\n'))
    const target = await setupCallTarget(t, { trunkUri: `sip:127.0.0.1:${callee.ports.tls};transport=tls`, transport: 'tls', direction: 'outbound' })
    await requireSrtp(target.numberId)
    const placed = await t.api('POST', '/api/calls', { body: { phoneNumberId: target.numberId, to: '+14155550177' } })
    expect(placed.status, JSON.stringify(placed.body)).toBe(200)
    const call = await waitForCall(t, (c) => c.id === placed.body.call.id && c.status === 'ended', 20_000)
    expect(call).toMatchObject({ outcome: 'failed', endReason: 'media_not_acceptable', transcript: [] })
    const line = t.logs.find((l) => l.includes('unusable SDP answer; hanging up') && l.includes(placed.body.call.id))
    expect(JSON.parse(line!).reason).toBe('the answer carries no a=crypto line (plain RTP) and this call requires SRTP')
  } finally {
    await callee.stop()
  }
}, 30_000)
