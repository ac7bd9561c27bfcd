// The media engine inside real calls: SIPp plays its own pcaps (G.711 A-law speech, RFC 4733
// keys) to a number of a running appliance; baresip talks Opus with it both ways.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { readFileSync, writeFileSync, mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { startTestAppliance, type TestAppliance } from '../../helpers/appliance.ts'
import { dialWithBaresip, opusMicrophone } from '../../helpers/baresip.ts'
import { setupCallTarget, waitForCall, waitForCalls, type CallSetup } from '../../helpers/calls.ts'
import { readStereoWav, bestCorrelation } from '../../helpers/media-call.ts'
import { readPcapUdp, SIPP_PCAP_DIR } from '../../helpers/pcap.ts'
import { freePort, scenarioFrom, sipp } from '../../helpers/sipp.ts'
import { decodeG711 } from '../../../src/realtime/media/codec/index.ts'
import { parseRtp } from '../../../src/realtime/media/rtp/index.ts'
import { rmsDbfs } from '../../../src/realtime/voice/audio.ts'
import { loudWindows } from '../../helpers/speech.ts'

const FIXTURES = join(import.meta.dir, '../../fixtures/sip')

/** The 16-bit samples of a WAV's data chunk, whatever its channel count. */
function pcmOf(bytes: Uint8Array): Int16Array {
  let o = 12
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  while (o + 8 <= bytes.length) {
    const size = view.getUint32(o + 4, true)
    if (String.fromCharCode(...bytes.subarray(o, o + 4)) === 'data') {
      const end = Math.min(bytes.length, o + 8 + size)
      return new Int16Array(bytes.slice(o + 8, end - ((end - o - 8) & 1)).buffer)
    }
    o += 8 + size + (size & 1)
  }
  throw new Error('no data chunk')
}

let t: TestAppliance
let target: CallSetup

beforeAll(async () => {
  t = await startTestAppliance({ LLM_PROVIDER: 'none' })
  target = await setupCallTarget(t)
  // a workflow that greets and then waits for a key that never comes, so the caller hangs up
  const graph = {
    nodes: [
      { id: 'start', type: 'start', config: { text: 'Hello.' } },
      { id: 'menu', type: 'say', config: { text: 'Press 9 to leave.' } },
      { id: 'bye', type: 'end', config: { text: 'Goodbye.' } },
    ],
    edges: [{ from: 'start', to: 'menu' }, { from: 'menu', to: 'bye', condition: { type: 'dtmf', digits: '9' } }],
  }
  expect((await t.api('PUT', `/api/agents/${target.agentId}/workflow`, { body: graph })).status).toBe(200)
})

afterAll(async () => {
  await t?.stop()
})

const newCall = async (before: Set<string>) => waitForCall(t, (c) => !before.has(c.id) && c.status === 'ended', 30_000)
const callIds = async () => new Set(((await t.api('GET', '/api/calls?limit=100')).body.calls as any[]).map((c) => c.id as string))

test("SIPp's uac_pcap (g711a.pcap, then key 1) calls the appliance: the recording's caller channel correlates >= 0.95 with the pcap, the key reaches the call, and the agent line the speech cut stays in the transcript", async () => {
  const builtIn = Bun.spawnSync(['sipp', '-sd', 'uac_pcap']).stdout.toString()
  const scenario = join(mkdtempSync(join(tmpdir(), 'uac-pcap-')), 'uac_pcap.xml')
  writeFileSync(scenario, builtIn.replaceAll('pcap/', `${SIPP_PCAP_DIR}/`))
  const before = await callIds()
  const run = await sipp(['-sf', scenario, `127.0.0.1:${t.appliance.sip.udp}`, '-s', target.e164.slice(1), '-m', '1', '-i', '127.0.0.1', '-p', String(await freePort()), '-mp', String(await freePort())], 40).exited
  expect(run.code, run.stderr + run.stdout.slice(-1500)).toBe(0)
  const call = await newCall(before)
  expect(call).toMatchObject({ outcome: 'completed', endReason: 'caller_hangup' })
  expect(call.transcript.filter((i: any) => i.role === 'user').map((i: any) => i.text)).toEqual(['[DTMF] 1'])
  // the recorded speech starts while the agent greets (which of its two lines it cuts depends on when
  // the greeting started): the cut line stays, as far as it was said, and is marked
  const said = ['Hello.', 'Press 9 to leave.']
  const agent = call.transcript.filter((i: any) => i.role === 'agent')
  expect(agent.some((i: any) => i.interrupted === true)).toBe(true)
  for (const line of agent) {
    if (line.interrupted) expect(said.some((s) => line.text.length > 0 && s.startsWith(line.text))).toBe(true)
    else expect(said).toContain(line.text)
  }

  const packets = readPcapUdp(join(SIPP_PCAP_DIR, 'g711a.pcap')).map((p) => parseRtp(p.payload)).filter((p) => p.payloadType === 8)
  const reference = decodeG711('alaw', Uint8Array.from(packets.flatMap((p) => [...p.payload])))
  const { left, sampleRate } = readStereoWav(`${t.dataDir}/recordings/${call.id}.wav`)
  expect(sampleRate).toBe(16000)
  const left8 = Int16Array.from({ length: left.length >> 1 }, (_, i) => left[2 * i]!)
  // align on the first loud sample of each; then each 500 ms of speech is matched near where the
  // previous one was found, since the adaptive jitter buffer may shift the stream by a few ms
  const onset = (x: Int16Array) => x.findIndex((v) => Math.abs(v) > 1000)
  let offset = onset(left8) - onset(reference)
  expect(offset).toBeGreaterThanOrEqual(0)
  const rs: number[] = []
  for (let o = 0; o + 4000 <= reference.length; o += 4000) {
    const piece = reference.subarray(o, o + 4000)
    if (rmsDbfs(piece) < -40) continue
    const from = Math.max(0, offset + o - 400)
    const best = bestCorrelation(piece, left8.subarray(from), 800, 1)
    offset = from + best.lag - o
    rs.push(best.r)
  }
  rs.sort((a, b) => a - b)
  expect(rs.length).toBeGreaterThan(8)
  expect(rs[Math.floor(rs.length / 2)]!, `segment correlations ${rs.map((r) => r.toFixed(3)).join(' ')}`).toBeGreaterThanOrEqual(0.95)
}, 60_000)

test("each of SIPp's dtmf_2833 pcaps, played in a call of its own, gives that call exactly one key", async () => {
  const keys = ['0', '1', '2', '3', '4', '5', '6', '7', '8', '9', 'star', 'pound']
  const before = await callIds()
  const runs = await Promise.all(
    keys.map(async (k) => {
      const scenario = scenarioFrom(join(FIXTURES, 'uac-dtmf.xml'), { PCAP: join(SIPP_PCAP_DIR, `dtmf_2833_${k}.pcap`), KEY_AFTER_MS: '200' })
      const run = await sipp(['-sf', scenario, `127.0.0.1:${t.appliance.sip.udp}`, '-s', target.e164.slice(1), '-m', '1', '-i', '127.0.0.1', '-p', String(await freePort()), '-mp', String(await freePort())], 40).exited
      return { k, run }
    }),
  )
  for (const { k, run } of runs) expect(run.code, `${k}: ${run.stderr}`).toBe(0)
  const mine = (calls: any[]) => calls.filter((c) => !before.has(c.id) && c.status === 'ended')
  const calls = mine(await waitForCalls(t, (list) => mine(list).length === keys.length))
  const pressed = calls.map((c) => c.transcript.filter((i: any) => i.role === 'user').map((i: any) => i.text))
  expect(pressed.map((p) => p.join('|')).sort()).toEqual(['0', '1', '2', '3', '4', '5', '6', '7', '8', '9', '*', '#'].map((d) => `[DTMF] ${d}`).sort())
}, 90_000)

test('baresip calls with Opus only: audio flows both ways (its tone in our recording, our speech at its ear)', async () => {
  const greeter = await setupCallTarget(t)
  const graph = {
    nodes: [
      { id: 'start', type: 'start', config: { text: 'Hello, this line works. Thank you for testing it.' } },
      { id: 'bye', type: 'end', config: { text: 'Goodbye.' } },
    ],
    edges: [{ from: 'start', to: 'bye' }],
  }
  expect((await t.api('PUT', `/api/agents/${greeter.agentId}/workflow`, { body: graph })).status).toBe(200)
  // bursts of a 440 Hz tone, 250 ms every 1.5 s: loud enough to measure, far too short to barge in on the agent
  const rate = 48000
  const tone = new Int16Array(rate * 10)
  for (let i = 0; i < tone.length; i++) if ((i / rate) % 1.5 < 0.25) tone[i] = Math.round(6000 * Math.sin((2 * Math.PI * 440 * i) / rate))
  const mic = opusMicrophone(tone, rate)
  const before = await callIds()
  const phone = dialWithBaresip(`sip:${greeter.e164.slice(1)}@127.0.0.1:${t.appliance.sip.udp}`, mic, {
    codecs: ['opus.so'],
    timeoutSec: 30,
  })
  try {
    expect(await phone.saw('Call established'), phone.output()).toBe(true)
    expect(await phone.saw('session closed'), phone.output()).toBe(true)
    const call = await newCall(before)
    expect(call).toMatchObject({ outcome: 'completed', endReason: 'agent_hangup' })
    expect(call.transcript.map((i: any) => i.text)).toEqual(['Hello, this line works. Thank you for testing it.', 'Goodbye.'])
    const { left } = readStereoWav(`${t.dataDir}/recordings/${call.id}.wav`)
    const loudCaller = loudWindows(left, 1600, -30)
    expect(loudCaller, JSON.stringify(call)).toBeGreaterThan(10)
    const heard = pcmOf(readFileSync(phone.heardPath()))
    const loudAgent = loudWindows(heard, 9600, -35) // 100 ms windows of 48 kHz stereo
    expect(loudAgent).toBeGreaterThan(10)
    expect(phone.output()).toMatch(/opus/i)
  } finally {
    await phone.stop()
  }
}, 60_000)
