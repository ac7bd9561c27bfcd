// An SRTP call re-keyed by the caller's hold and resume: the phone (a SIP user agent and call media
// built from the appliance's own parts, on their own sockets) puts the agent on hold with a
// re-INVITE carrying a new SDES key, takes it off hold, and talks under the new key. The agent
// hears it (the transcript holds the line) and the phone hears the agent's goodbye, with no
// packet refused on either side.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import parsePrometheusTextFormat from 'parse-prometheus-text-format'
import { startTestAppliance, type TestAppliance } from '../../helpers/appliance.ts'
import { setupCallTarget, waitForCall } from '../../helpers/calls.ts'
import { InMemoryNumberDirectory } from '../../helpers/number-directory.ts'
import { fliteSpeech, loudness } from '../../helpers/speech.ts'
import { startFakeDeepgram, type FakeDeepgram } from '../../fakes/deepgram.ts'
import { startFakeOpenAi, type FakeOpenAi } from '../../fakes/openai.ts'
import { CallMedia, MediaClock, RtpPortPool } from '../../../src/realtime/media/index.ts'
import { generateInlineKey } from '../../../src/realtime/srtp/index.ts'
import { acceptAnswer, createMediaOffer, NegotiatedSrtp, type NegotiatedMedia } from '../../../src/realtime/telephony/sdp/index.ts'
import { UserAgent } from '../../../src/realtime/telephony/sip/index.ts'

let t: TestAppliance
let llm: FakeOpenAi
let stt: FakeDeepgram
let phone: UserAgent

beforeAll(async () => {
  llm = startFakeOpenAi()
  stt = startFakeDeepgram()
  t = await startTestAppliance({
    STT_PROVIDER: 'deepgram', DEEPGRAM_BASE_URL: stt.url, DEEPGRAM_API_KEY: 'test-key',
    LLM_PROVIDER: 'openai', LLM_BASE_URL: llm.url, LLM_API_KEY: 'test-key', TTS_PROVIDER: 'flite',
  })
  phone = new UserAgent({ host: '127.0.0.1', publicHost: '127.0.0.1', port: 0, directory: new InMemoryNumberDirectory([]) })
  await phone.start()
})

afterAll(async () => {
  await phone?.stop()
  await t?.stop()
  llm?.stop()
  stt?.stop()
})

/** A promise resolved by the first heard frame for which `when` holds (frames are 20 ms at 16 kHz). */
function listener() {
  const db: number[] = []
  let waiting: { when: (db: number[]) => boolean; resolve: () => void }[] = []
  return {
    db,
    onAudio(frame: Int16Array) {
      db.push(loudness(frame, frame.length)[0]!)
      waiting = waiting.filter((w) => (w.when(db) ? (w.resolve(), false) : true))
    },
    until: (when: (db: number[]) => boolean) => new Promise<void>((resolve) => waiting.push({ when, resolve })),
  }
}

const loudFrames = (db: number[]) => db.filter((v) => v > -35).length

test('the caller re-keys an SRTP call with hold and resume: the agent hears it under the new key and answers, nothing refused', async () => {
  const target = await setupCallTarget(t, { agent: { welcome: { mode: 'agent_speaks_first', message: 'Hello, thanks for calling the clinic.' } } })
  expect((await t.api('PATCH', `/api/phone-numbers/${target.numberId}`, { body: { mediaEncryption: 'optional' } })).status).toBe(200)
  stt.utterances.push('I would like to book an appointment')
  llm.chat.push({ text: '', toolCalls: [{ name: 'end_call', arguments: JSON.stringify({ message: 'Of course, we will call you back today. Goodbye!' }) }], usage: { prompt: 50, completion: 10 } })

  const base = 38000 + 2 * Math.floor(Math.random() * 500)
  const ports = await new RtpPortPool(base, base + 10, '127.0.0.1').bind()
  const local = { address: '127.0.0.1', port: ports.port, codecs: ['PCMU' as const], encryption: 'required' as const }
  const offer = createMediaOffer(local)
  const call = await phone.placeCall({ target: `sip:${target.e164.slice(1)}@127.0.0.1:${t.appliance.sip.udp}`, from: { user: '15550001111' }, sdp: offer.sdp })
  const [answer] = await call.next('answered')
  let media: NegotiatedMedia = acceptAnswer(answer, local, offer)
  expect(media.srtp?.suite).toBe('AES_CM_128_HMAC_SHA1_80')
  const ear = listener()
  const cm = new CallMedia({ ports, clock: new MediaClock(), media, onAudio: (f) => ear.onAudio(f) })
  const ended = call.next('ended')
  try {
    // the welcome, then a second of quiet
    await ear.until((db) => loudFrames(db) > 40 && db.slice(-50).every((v) => v <= -35))

    // hold with a new key for what the phone sends, then resume; the agent keeps its own key
    const newKey = generateInlineKey('AES_CM_128_HMAC_SHA1_80')
    call.localSdp = call.localSdp!.replace(/^a=crypto:.*\r\n/gm, '').replace(/^(m=audio .*\r\n)/m, `$1a=crypto:1 AES_CM_128_HMAC_SHA1_80 inline:${newKey}\r\n`)
    expect(await call.hold()).toBe(true)
    media = { ...media, srtp: new NegotiatedSrtp('AES_CM_128_HMAC_SHA1_80', newKey, media.srtp!.receiveKey) }
    cm.update(media)
    expect(await call.unhold()).toBe(true)

    const heardBefore = ear.db.length
    const line = fliteSpeech('I would like to book an appointment')
    cm.play(line.samples)
    await ended
    const call_ = await waitForCall(t, (c) => c.to === target.e164 && c.status === 'ended', 20_000)
    expect(call_).toMatchObject({ outcome: 'completed', endReason: 'agent_hangup' })
    expect(call_.transcript.map((i: any) => [i.role, i.text])).toEqual([
      ['agent', 'Hello, thanks for calling the clinic.'],
      ['user', 'I would like to book an appointment'],
      ['agent', 'Of course, we will call you back today. Goodbye!'],
    ])
    // the goodbye reached the phone under the agent's unchanged key
    expect(loudFrames(ear.db.slice(heardBefore))).toBeGreaterThan(40)
    expect(cm.stats().rtp.srtp).toEqual({ suite: 'AES_CM_128_HMAC_SHA1_80', authFailures: 0, replays: 0, malformed: 0 })
  } finally {
    await cm.close()
    call.hangup()
  }
  // the appliance refused nothing either, under the old key or the new
  const metrics = parsePrometheusTextFormat(await (await fetch(`${t.url}/metrics`, { headers: { authorization: `Bearer ${t.adminKey}` } })).text()) as { name: string; metrics: { labels?: Record<string, string>; value?: string }[] }[]
  const dropped = metrics.find((f) => f.name === 'voice_agent_srtp_packets_dropped_total')!.metrics
  expect(Object.fromEntries(dropped.map((m) => [m.labels!.reason, Number(m.value)]))).toEqual({ auth: 0, replay: 0, malformed: 0 })
}, 60_000)
