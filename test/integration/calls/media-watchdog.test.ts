// Issue 44, watchdogs and media diagnostics: a far end that stops sending RTP without a BYE is
// hung up on after RTP_TIMEOUT_MS (outcome media_timeout), and the call's media facts (codec,
// remote media address, packets and bytes, loss, jitter, the largest gap) are in the record, the
// export (JSON and CSV) and the end-of-call log line. The caller is SIPp playing its own pcap.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { join } from 'node:path'
import { startTestAppliance, type TestAppliance } from '../../helpers/appliance.ts'
import { setupCallTarget, waitForCall } from '../../helpers/calls.ts'
import { SIPP_PCAP_DIR } from '../../helpers/pcap.ts'
import { freePort, scenarioFrom, sipp } from '../../helpers/sipp.ts'
import { until } from '../../helpers/until.ts'
import { parseCsv } from '../../../src/platform/csv/read.ts'
import { startFakeOpenAi, type FakeOpenAi } from '../../fakes/openai.ts'
import { startReceiver, type Receiver } from '../../helpers/webhook-receiver.ts'

const FIXTURES = join(import.meta.dir, '../../fixtures/sip')
const RTP_TIMEOUT_MS = 1500
let t: TestAppliance
let llm: FakeOpenAi
let rx: Receiver
const lines: any[] = []

beforeAll(async () => {
  llm = startFakeOpenAi()
  rx = startReceiver()
  t = await startTestAppliance({ LOG_LEVEL: 'info', RTP_TIMEOUT_MS, LLM_PROVIDER: 'openai', LLM_BASE_URL: llm.url, LLM_API_KEY: 'test', WEBHOOK_ALLOW_HTTP: true, WEBHOOK_ALLOW_PRIVATE: true, BACKGROUND_POLL_MS: 50 }, undefined, { write: (line) => void lines.push(JSON.parse(line)) })
})

afterAll(async () => {
  await t?.stop()
  llm?.stop()
  await rx?.stop()
})

test('a caller that stops sending RTP without a BYE gets our BYE and the call ends media_timeout, its media facts in the record, the export, the CSV, the call_end line and the webhook', async () => {
  const target = await setupCallTarget(t, { agent: { welcome: { mode: 'agent_speaks_first', message: 'Hello.' }, webhookUrl: rx.url } })
  // the post-call analysis the webhook waits for
  llm.structured.push({ text: JSON.stringify({ summary: 'The caller went silent.', sentiment: 'neutral', isVoicemail: false, scores: [] }), usage: { prompt: 50, completion: 10 } })
  const mediaPort = await freePort()
  const scenario = scenarioFrom(join(FIXTURES, 'uac-vanish.xml'), { PCAP: join(SIPP_PCAP_DIR, 'g711a.pcap'), BYE_WITHIN_MS: '30000' })
  const args = ['-sf', scenario, `127.0.0.1:${t.appliance.sip.udp}`, '-s', target.e164.slice(1), '-m', '1', '-i', '127.0.0.1', '-p', String(await freePort()), '-mp', String(mediaPort)]
  // SIPp exits 0 only when our BYE came (it never sends one)
  const run = await sipp(args, 60).exited
  expect(run.code, run.stderr + run.stdout.slice(-1000)).toBe(0)

  const call = await waitForCall(t, (c) => c.status === 'ended' && c.to === target.e164, 20_000)
  expect(call).toMatchObject({ outcome: 'media_timeout', endReason: 'media_timeout' })
  const record = (await t.api('GET', `/api/calls/${call.id}`)).body
  const media = record.call.media
  expect(media).toMatchObject({ codec: 'PCMA/8000', remoteAddress: '127.0.0.1', remotePort: mediaPort, srtpSuite: null, packetsLost: 0 })
  // the pcap is some seconds of A-law packets of one size (30 ms, 240 bytes)
  expect(media.packetsReceived).toBeGreaterThan(100)
  expect(media.bytesReceived).toBe(media.packetsReceived * 240)
  expect(media.packetsSent).toBeGreaterThan(0)
  expect(media.bytesSent).toBeGreaterThan(0)
  expect(media.jitterMs).toBeGreaterThanOrEqual(0)
  // the silence that ended the call is the largest gap
  expect(media.maxGapMs).toBeGreaterThanOrEqual(RTP_TIMEOUT_MS)
  expect(media.web).toBeUndefined()

  // the OpenAPI document describes the field on the call and its export
  const spec = JSON.stringify((await t.api('GET', '/openapi/json', { key: null })).body)
  for (const field of ['maxGapMs', 'packetsDiscarded', 'media_timeout', 'dtls_failed']) expect(spec).toContain(`"${field}"`)
  const exported = (await t.api('GET', `/api/calls/${call.id}/export`)).body
  expect(exported.call.outcome).toBe('media_timeout')
  expect(exported.media).toEqual(media)
  const csv = (await t.api('GET', '/api/calls/export?format=csv')).body as string
  const [header, ...rows] = parseCsv(csv)
  const row = rows.find((r) => r[0] === call.id)!
  const cell = (name: string) => row[header!.indexOf(name)]
  expect(cell('mediaCodec')).toBe('PCMA/8000')
  expect(cell('mediaRemote')).toBe(`127.0.0.1:${mediaPort}`)
  expect(Number(cell('packetsReceived'))).toBe(media.packetsReceived)
  expect(Number(cell('maxGapMs'))).toBe(media.maxGapMs)

  await until(() => lines.some((l) => l.event === 'call_end' && l.callId === call.id), 10_000, 'the call end line')
  const end = lines.find((l) => l.event === 'call_end' && l.callId === call.id)
  expect(end).toMatchObject({ level: 30, outcome: 'media_timeout', media })

  // the post-call webhook carries the export document, media and all
  await until(() => rx.received.length === 1, 15_000, 'the post-call webhook')
  const event = JSON.parse(rx.received[0]!.body)
  expect(event.data.call.outcome).toBe('media_timeout')
  expect(event.data.media).toEqual(media)
}, 90_000)

test('a call on hold is not ended for its silence; once taken off hold, the silence ends it media_timeout', async () => {
  const target = await setupCallTarget(t, { agent: { welcome: { mode: 'user_speaks_first' } } })
  // on hold for twice the timeout, without a packet: the scenario fails if our BYE comes then
  const scenario = scenarioFrom(join(FIXTURES, 'uac-hold-quiet.xml'), { HOLD_MS: String(2 * RTP_TIMEOUT_MS), BYE_WITHIN_MS: '30000' })
  const args = ['-sf', scenario, `127.0.0.1:${t.appliance.sip.udp}`, '-s', target.e164.slice(1), '-m', '1', '-i', '127.0.0.1', '-p', String(await freePort()), '-mp', String(await freePort())]
  const run = await sipp(args, 60).exited
  expect(run.code, run.stderr + run.stdout.slice(-1000)).toBe(0)
  const call = await waitForCall(t, (c) => c.status === 'ended' && c.to === target.e164, 20_000)
  expect(call).toMatchObject({ outcome: 'media_timeout', endReason: 'media_timeout' })
  expect(call.duration).toBeGreaterThanOrEqual(Math.floor((3 * RTP_TIMEOUT_MS) / 1000))
  expect(call.media).toMatchObject({ packetsReceived: 0, bytesReceived: 0 })
}, 90_000)
