// The compiled executable, alone in an empty folder and started from another one, holds an offline
// conversation with a real phone (baresip): Silero hears the caller, pocketsphinx transcribes,
// the workflow answers and flite speaks, all from inside the one file.
import { afterAll, beforeAll, expect } from 'bun:test'
import { testNeedingPackage } from '../../helpers/debian.ts'
import { readFileSync } from 'node:fs'
import { dialWithBaresip } from '../../helpers/baresip.ts'
import { setupCallTarget, waitForCall } from '../../helpers/calls.ts'
import { runExecutable, type RunningExecutable } from '../../helpers/executable.ts'
import { until } from '../../helpers/until.ts'
import { startWebCall } from '../../helpers/web-client.ts'
import { fliteSpeech, loudWindows, silence } from '../../helpers/speech.ts'
import { concatFrames, parseWav, writeWav } from '../../../src/realtime/voice/audio.ts'
import { resample } from '../../../src/realtime/voice/resample.ts'
import { PocketsphinxStt } from '../../../src/realtime/voice/stt/index.ts'

const installed = PocketsphinxStt.available()
const test = testNeedingPackage('libpocketsphinx3', installed)
let exe: RunningExecutable

beforeAll(async () => {
  // web calls offer loopback host candidates only: the browser stand-in is on this machine
  if (installed) exe = await runExecutable({ STT_PROVIDER: 'pocketsphinx', LLM_PROVIDER: 'none', WEBRTC_HOST_ADDRESSES: '127.0.0.1' })
}, 60_000)

afterAll(async () => {
  await exe?.stop()
})

test('the executable starts with Silero active from any folder and says so in its start log and /ready', async () => {
  const engines = exe.logs.find((l) => l.msg === 'voice engines ready')?.engines as string[]
  expect(engines).toContain('VAD: silero-v5')
  expect(engines).toContain('TTS: flite')
  const ready = await exe.api('GET', '/ready', { key: null })
  expect(ready).toMatchObject({ status: 200, body: { status: 'ready' } })
})

test('a caller talks with a workflow agent of the executable: the agent is heard and the transcript holds both sides', async () => {
  const target = await setupCallTarget({ api: exe.api, workspaceId: await workspaceId() } as any)
  const graph = {
    nodes: [
      { id: 'start', type: 'start', config: { text: 'Hello, you have reached the offline receptionist. How can I help you?' } },
      { id: 'bye', type: 'end', config: { text: 'Thank you for calling. Goodbye.' } },
    ],
    // any words at all: the workflow waits for the caller to speak
    edges: [{ from: 'start', to: 'bye', condition: { type: 'regex', pattern: '\\w' } }],
  }
  const put = await exe.api('PUT', `/api/agents/${target.agentId}/workflow`, { body: graph })
  expect(put.status, JSON.stringify(put.body)).toBe(200)

  // the caller waits for the greeting, then asks; G.711 at 8 kHz, as most trunks deliver it
  const question = fliteSpeech('what are your opening hours')
  const speech = concatFrames([silence(5000, 16000), question, silence(8000, 16000)])
  const mic = writeWav({ samples: resample(speech.samples, 16000, 8000), sampleRate: 8000 })
  const phone = dialWithBaresip(`sip:${target.e164.slice(1)}@127.0.0.1:${exe.sipUdp}`, mic, { timeoutSec: 30 })
  try {
    expect(await phone.saw('session closed'), phone.output()).toBe(true)
    const call = await waitForCall({ api: exe.api } as any, (c) => c.status === 'ended' && c.to === target.e164)
    expect(call).toMatchObject({ outcome: 'completed', endReason: 'agent_hangup' })
    const agent = call.transcript.filter((i: any) => i.role === 'agent').map((i: any) => i.text)
    const user = call.transcript.filter((i: any) => i.role === 'user').map((i: any) => i.text)
    expect(agent).toEqual([graph.nodes[0]!.config.text, graph.nodes[1]!.config.text])
    expect(user.length).toBe(1)
    expect(user[0]).toContain('hours')
    expect(call.metrics.ttsDuration).toBeGreaterThan(1)
    // the phone heard the agent: seconds of speech energy, not silence
    const heard = parseWav(readFileSync(phone.heardPath()))
    expect(loudWindows(heard.samples, heard.sampleRate / 10, -35)).toBeGreaterThan(20)
  } finally {
    await phone.stop()
  }
}, 60_000)

test('a browser (werift stand-in) talks with a workflow agent of the executable over WebRTC: greeted, heard, listed as type web', async () => {
  const agent = await exe.api('POST', '/api/agents', { body: { name: 'Web desk' } })
  expect(agent.status, JSON.stringify(agent.body)).toBe(200)
  const agentId = agent.body.agent.id as string
  const graph = {
    nodes: [
      { id: 'start', type: 'start', config: { text: 'Hello from the browser desk. How can I help you?' } },
      { id: 'bye', type: 'end', config: { text: 'Thank you. Goodbye.' } },
    ],
    edges: [{ from: 'start', to: 'bye', condition: { type: 'regex', pattern: '\\w' } }],
  }
  const put = await exe.api('PUT', `/api/agents/${agentId}/workflow`, { body: graph })
  expect(put.status, JSON.stringify(put.body)).toBe(200)
  const client = await startWebCall(exe.url, exe.adminKey, agentId)
  try {
    await client.connected
    await until(() => loudWindows(client.heard(), 1600, -35) > 10, 30_000, 'the greeting to reach the browser')
    // the caller lets the greeting finish (about 3 s), then asks
    client.say(concatFrames([silence(4000, 16000), fliteSpeech('what are your opening hours'), silence(3000, 16000)]).samples)
    const call = await waitForCall({ api: exe.api } as any, (c) => c.id === client.callId && c.status === 'ended', 40_000)
    expect(call).toMatchObject({ type: 'web', outcome: 'completed', endReason: 'agent_hangup' })
    expect(call.transcript.filter((i: any) => i.role === 'user').length).toBe(1)
    expect(call.transcript.filter((i: any) => i.role === 'agent').map((i: any) => i.text)).toEqual([graph.nodes[0]!.config.text, graph.nodes[1]!.config.text])
  } finally {
    await client.close()
  }
}, 90_000)

test("a campaign upload large enough for the parsing worker thread is stored by the executable, each contact in its number's zone from the embedded prefix data", async () => {
  const target = await setupCallTarget({ api: exe.api, workspaceId: await workspaceId() } as any, { direction: 'outbound', trunkUri: 'sip:127.0.0.1:5999' })
  // well over the size prepared on the event loop (INLINE_MAX_BYTES): the worker's script must be inside the file
  const contacts = Array.from({ length: 2000 }, (_, i) => ({ to: `+1415555${String(i).padStart(4, '0')}`, dynamicVariables: { name: `Contact ${i}` } }))
  const job = await exe.api('POST', '/api/outbound/jobs', {
    body: { agentId: target.agentId, phoneNumberId: target.numberId, name: 'from the executable', contacts, settings: { scheduling: { startAt: '2099-01-01T09:00:00Z' } } },
  })
  expect(job.status, JSON.stringify(job.body).slice(0, 500)).toBe(200)
  expect(job.body.job).toMatchObject({ status: 'scheduled', totalContacts: 2000 })
  // libphonenumber's timezones.bson is read from inside the file, not from node_modules
  const [first] = (await exe.api('GET', `/api/outbound/jobs/${job.body.job.id}/contacts?limit=1`)).body.contacts
  expect(first).toMatchObject({ to: '+14155550000', timezone: 'America/Los_Angeles', timezoneSource: 'number', nextAttemptAt: '2099-01-01T16:00:00.000Z', nextAttemptLocal: '2099-01-01T08:00:00.000-08:00' })
})

async function workspaceId(): Promise<string> {
  return (await exe.api('GET', '/api/workspaces')).body.workspaces[0].id
}

test('with its VAD model missing the executable reports degraded on /ready, and its start log names the fallback', async () => {
  const other = await runExecutable({ VAD_MODEL_FILE: '/nonexistent/silero.onnx', STT_PROVIDER: 'none' })
  try {
    const engines = other.logs.find((l) => l.msg === 'voice engines ready')?.engines as string[]
    expect(engines.join('\n')).toContain('VAD: Silero could not be loaded, using the energy VAD')
    const ready = await other.api('GET', '/ready', { key: null })
    expect(ready.status).toBe(200)
    expect(ready.body.status).toBe('degraded')
    expect(ready.body.problems[0]).toContain('/nonexistent/silero.onnx')
  } finally {
    await other.stop()
  }
}, 30_000)

test('the executable serves the web console and every file its page and modules name, from inside itself', async () => {
  const res = await fetch(`${exe.url}/console`)
  expect(res.status).toBe(200)
  const shell = await res.text()
  const base = /src="(\/console\/assets\/[0-9a-f]{12}\/)app\.mjs"/.exec(shell)![1]!
  const importMap = JSON.parse(/<script type="importmap">([^<]*)<\/script>/.exec(shell)![1]!) as { imports: Record<string, string> }
  const app = await (await fetch(`${exe.url}${base}app.mjs`)).text()
  const relative = [...app.matchAll(/from '\.\/([^']+)'/g)].map((m) => base + m[1])
  for (const path of [...Object.values(importMap.imports), ...relative, `${base}console.css`, `${base}vendor/uplot.css`]) {
    const file = await fetch(`${exe.url}${path}`)
    expect([path, file.status, (await file.arrayBuffer()).byteLength > 100]).toEqual([path, 200, true])
  }
})
