// GET /metrics, read by a Prometheus text-format parser after real traffic: a SIPp call, API requests.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import parsePrometheusTextFormat from 'parse-prometheus-text-format'
import { startTestAppliance, type TestAppliance } from '../helpers/appliance.ts'
import { setupCallTarget, waitForCall } from '../helpers/calls.ts'
import { dialWithBaresip } from '../helpers/baresip.ts'
import { testNeedingPackage } from '../helpers/debian.ts'
import { freePort, sipp } from '../helpers/sipp.ts'
import { fliteSpeech, silence } from '../helpers/speech.ts'
import { concatFrames, writeWav } from '../../src/realtime/voice/audio.ts'
import { resample } from '../../src/realtime/voice/resample.ts'
import { PocketsphinxStt } from '../../src/realtime/voice/stt/index.ts'

interface Family {
  name: string
  type: string
  metrics: { value?: string; labels?: Record<string, string>; buckets?: Record<string, string>; count?: string; sum?: string }[]
}

let t: TestAppliance

beforeAll(async () => {
  t = await startTestAppliance()
})

afterAll(async () => {
  await t?.stop()
})

async function scrape(headers: Record<string, string> = {}): Promise<Map<string, Family>> {
  const res = await fetch(`${t.url}/metrics`, { headers })
  expect(res.status).toBe(200)
  expect(res.headers.get('content-type')).toContain('text/plain')
  const families = parsePrometheusTextFormat(await res.text()) as Family[]
  return new Map(families.map((f) => [f.name, f]))
}

const sample = (f: Family | undefined, labels: Record<string, string>) =>
  Number(f?.metrics.find((m) => Object.entries(labels).every(([k, v]) => m.labels?.[k] === v))?.value ?? 0)

test('after a SIPp call the SIP request and response counters show the INVITE, its 200 and the BYE', async () => {
  const target = await setupCallTarget(t)
  const run = await sipp(['-sn', 'uac', `127.0.0.1:${t.appliance.sip.udp}`, '-s', target.e164.slice(1), '-m', '1', '-d', '500', '-i', '127.0.0.1', '-p', String(await freePort())]).exited
  expect(run.code, run.stderr).toBe(0)
  await waitForCall(t, (c) => c.status === 'ended' && c.to === target.e164)
  const m = await scrape()
  expect(sample(m.get('voice_agent_sip_requests_total'), { direction: 'in', method: 'INVITE' })).toBeGreaterThanOrEqual(1)
  expect(sample(m.get('voice_agent_sip_requests_total'), { direction: 'in', method: 'BYE' })).toBeGreaterThanOrEqual(1)
  expect(sample(m.get('voice_agent_sip_responses_total'), { direction: 'out', method: 'INVITE', code: '200' })).toBeGreaterThanOrEqual(1)
  expect(sample(m.get('voice_agent_sip_responses_total'), { direction: 'out', method: 'BYE', code: '200' })).toBeGreaterThanOrEqual(1)
  expect(m.get('voice_agent_calls_live')?.metrics[0]?.value).toBe('0')
}, 30_000)

test('HTTP requests are counted by route template and status, with a latency histogram', async () => {
  for (let i = 0; i < 3; i++) expect((await t.api('GET', `/api/workspaces/${t.workspaceId}`)).status).toBe(200)
  expect((await t.api('GET', '/api/agents/agent_missing')).status).toBe(404)
  const m = await scrape()
  const requests = m.get('voice_agent_http_requests_total')
  expect(sample(requests, { method: 'GET', route: '/api/workspaces/:workspace_id', status: '200' })).toBeGreaterThanOrEqual(3)
  expect(sample(requests, { method: 'GET', route: '/api/agents/:id', status: '404' })).toBeGreaterThanOrEqual(1)
  // ids never become label values
  expect(requests!.metrics.some((s: any) => s.labels?.route?.includes(t.workspaceId))).toBe(false)
  expect(m.get('voice_agent_http_request_duration_ms')!.type).toBe('HISTOGRAM')
  // the parser merges the series of a labelled histogram into one, so this count is read from the text
  const text = await (await fetch(`${t.url}/metrics`)).text()
  const count = /^voice_agent_http_request_duration_ms_count\{method="GET",route="\/api\/workspaces\/:workspace_id"\} (\d+)$/m.exec(text)
  expect(Number(count?.[1])).toBeGreaterThanOrEqual(3)
})

test('the event-loop lag gauge and the process metrics are exported', async () => {
  const m = await scrape()
  expect(Number(m.get('voice_agent_event_loop_lag_ms')?.metrics[0]?.value)).toBeGreaterThanOrEqual(0)
  expect(Number(m.get('voice_agent_process_resident_memory_bytes')?.metrics[0]?.value)).toBeGreaterThan(10_000_000)
})

test('with METRICS_TOKEN set, /metrics needs it as a Bearer token; a wrong one gets the JSON error body', async () => {
  const guarded = await startTestAppliance({ METRICS_TOKEN: 'scrape-secret' })
  try {
    const none = await fetch(`${guarded.url}/metrics`)
    expect(none.status).toBe(401)
    expect(((await none.json()) as any).error.code).toBe('unauthorized')
    expect((await fetch(`${guarded.url}/metrics`, { headers: { authorization: 'Bearer wrong' } })).status).toBe(401)
    const ok = await fetch(`${guarded.url}/metrics`, { headers: { authorization: 'Bearer scrape-secret' } })
    expect(ok.status).toBe(200)
    expect(await ok.text()).toContain('voice_agent_calls_live')
  } finally {
    await guarded.stop()
  }
})

test('every metric the Grafana dashboard queries is one the appliance exports', async () => {
  const dashboard = await Bun.file(`${import.meta.dir}/../../deploy/grafana-dashboard.json`).json()
  const exported = new Set((await scrape()).keys())
  const queried = new Set<string>()
  for (const panel of dashboard.panels) for (const target of panel.targets) for (const name of target.expr.match(/voice_agent_[a-z_]+/g) ?? []) queried.add(name.replace(/_(bucket|count|sum)$/, ''))
  expect(queried.size).toBeGreaterThan(10)
  for (const name of queried) expect(exported.has(name), name).toBe(true)
})

describe('after a conversation', () => {
  const installed = PocketsphinxStt.available()
  const conversation = testNeedingPackage('libpocketsphinx3', installed)
  let talk: TestAppliance

  beforeAll(async () => {
    if (installed) talk = await startTestAppliance({ STT_PROVIDER: 'pocketsphinx', LLM_PROVIDER: 'none' })
  })
  afterAll(async () => {
    await talk?.stop()
  })

  conversation('the call counter, the voice-to-voice histogram and the RTP counters have samples', async () => {
    const target = await setupCallTarget(talk)
    const graph = {
      nodes: [
        { id: 'start', type: 'start', config: { text: 'Hello, how can I help you?' } },
        { id: 'bye', type: 'end', config: { text: 'Thank you. Goodbye.' } },
      ],
      edges: [{ from: 'start', to: 'bye', condition: { type: 'regex', pattern: '\\w' } }],
    }
    expect((await talk.api('PUT', `/api/agents/${target.agentId}/workflow`, { body: graph })).status).toBe(200)
    const speech = concatFrames([silence(3000, 16000), fliteSpeech('what are your opening hours'), silence(6000, 16000)])
    const mic = writeWav({ samples: resample(speech.samples, 16000, 8000), sampleRate: 8000 })
    const phone = dialWithBaresip(`sip:${target.e164.slice(1)}@127.0.0.1:${talk.appliance.sip.udp}`, mic, { timeoutSec: 30 })
    try {
      expect(await phone.saw('session closed'), phone.output()).toBe(true)
    } finally {
      await phone.stop()
    }
    const call = await waitForCall(talk, (c) => c.status === 'ended' && c.to === target.e164)
    expect(call.metrics.turns.length).toBeGreaterThanOrEqual(1)
    const res = await fetch(`${talk.url}/metrics`)
    const m = new Map((parsePrometheusTextFormat(await res.text()) as Family[]).map((f) => [f.name, f]))
    expect(sample(m.get('voice_agent_calls_total'), { direction: 'inbound', outcome: 'completed' })).toBe(1)
    const v2v = m.get('voice_agent_voice_to_voice_ms')!
    expect(v2v.type).toBe('HISTOGRAM')
    expect(Number(v2v.metrics[0]?.count)).toBe(call.metrics.turns.filter((t: any) => t.voiceToVoiceMs !== null).length)
    expect(Number(v2v.metrics[0]?.count)).toBeGreaterThanOrEqual(1)
    expect(sample(m.get('voice_agent_rtp_packets_total'), { direction: 'in' })).toBeGreaterThan(200)
    expect(sample(m.get('voice_agent_rtp_packets_total'), { direction: 'out' })).toBeGreaterThan(100)
  }, 60_000)
})
