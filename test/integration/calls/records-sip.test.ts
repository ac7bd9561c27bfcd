// Call records of real calls over SIP (baresip as the phone): the export document checked
// against a JSON schema written by hand from the spec's table, the LLM analysis and automatic
// evaluation (fake LLM) with their tokens costed, the signed post-call webhook, and the offline
// analysis of a call with no cloud at all.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { Webhook } from 'standardwebhooks'
import { validateArgs, type Schema } from '../../../src/realtime/voice/session/json-schema.ts'
import { LLM_PRICES } from '../../../src/realtime/voice/registry/index.ts'
import { concatFrames, writeWav } from '../../../src/realtime/voice/audio.ts'
import { resample } from '../../../src/realtime/voice/resample.ts'
import { startTestAppliance, type TestAppliance } from '../../helpers/appliance.ts'
import { dialWithBaresip } from '../../helpers/baresip.ts'
import { setupCallTarget, waitForCall } from '../../helpers/calls.ts'
import { fliteSpeech, silence } from '../../helpers/speech.ts'
import { until } from '../../helpers/until.ts'
import { seedCall } from '../../helpers/call-records.ts'
import { startReceiver, type Receiver } from '../../helpers/webhook-receiver.ts'
import { startFakeDeepgram, type FakeDeepgram } from '../../fakes/deepgram.ts'
import { startFakeOpenAi, type FakeOpenAi } from '../../fakes/openai.ts'
import schema from '../../fixtures/schemas/call-export.schema.json'

const E164 = /^\+[1-9]\d{6,14}$/

function microphone(lines: [number, string][], tailMs: number): Uint8Array {
  const rate = 16000
  const audio = concatFrames([...lines.flatMap(([pause, text]) => [silence(pause, rate), fliteSpeech(text)]), silence(tailMs, rate)])
  return writeWav({ samples: resample(audio.samples, rate, 8000), sampleRate: 8000 })
}

async function exportWhenAnalysed(t: TestAppliance, id: string): Promise<any> {
  let doc: any
  const end = Date.now() + 15_000
  while (doc?.analysis?.status !== 'completed') {
    if (Date.now() > end) throw new Error(`analysis did not complete: ${JSON.stringify(doc?.analysis)}`)
    await Bun.sleep(50)
    doc = (await t.api('GET', `/api/calls/${id}/export`)).body
  }
  return doc
}

describe('with the fake LLM', () => {
  let t: TestAppliance
  let llm: FakeOpenAi
  let stt: FakeDeepgram
  let rx: Receiver

  beforeAll(async () => {
    llm = startFakeOpenAi()
    stt = startFakeDeepgram()
    rx = startReceiver()
    t = await startTestAppliance({
      VAD_ENGINE: 'silero', STT_PROVIDER: 'deepgram', DEEPGRAM_BASE_URL: stt.url, DEEPGRAM_API_KEY: 'k',
      LLM_PROVIDER: 'openai', LLM_BASE_URL: llm.url, LLM_API_KEY: 'k', TTS_PROVIDER: 'flite',
      WEBHOOK_ALLOW_HTTP: true, WEBHOOK_ALLOW_PRIVATE: true, BACKGROUND_POLL_MS: 50,
    })
  })
  afterAll(async () => {
    await t?.stop()
    llm?.stop()
    stt?.stop()
    await rx?.stop()
  })

  test('a real call exports every spec field with the documented types, analysed and evaluated by the LLM, costed, and sent signed to the webhook', async () => {
    const target = await setupCallTarget(t, {
      agent: { welcome: { mode: 'agent_speaks_first', message: 'Hello, thanks for calling Acme Dental. How can I help?' }, webhookUrl: rx.url },
    })
    const criteria = [
      { name: 'greeting', description: 'greets the caller politely', weight: 1 },
      { name: 'resolution', description: "solves the caller's request", weight: 3 },
    ]
    expect((await t.api('PUT', `/api/agents/${target.agentId}/analysis-settings`, { body: { model: 'gpt-4o-mini', prompt: '', evaluationCriteria: criteria } })).status).toBe(200)
    stt.utterances.push('I would like to book a cleaning please', 'thank you that is great')
    llm.chat.push(
      { text: 'Sure, Friday at ten works.', usage: { prompt: 100, completion: 8 } },
      { text: '', toolCalls: [{ name: 'end_call', arguments: JSON.stringify({ message: 'You are booked. Goodbye!' }) }], usage: { prompt: 140, completion: 10 } },
    )
    llm.structured.push(
      {
        text: JSON.stringify({
          summary: 'The caller booked a cleaning for Friday at ten.',
          sentiment: 'positive',
          isVoicemail: false,
          scores: [{ name: 'greeting', score: 90, comment: 'warm' }, { name: 'resolution', score: 70, comment: 'booked' }],
        }),
        usage: { prompt: 400, completion: 60 },
      },
    )
    const phone = dialWithBaresip(
      `sip:${target.e164.slice(1)}@127.0.0.1:${t.appliance.sip.udp}`,
      microphone([[4500, 'I would like to book a cleaning please'], [5000, 'thank you that is great']], 10_000),
      { timeoutSec: 45 },
    )
    try {
      expect(await phone.saw('session closed'), phone.output()).toBe(true)
    } finally {
      await phone.stop()
    }
    const call = await waitForCall(t, (c) => c.status === 'ended' && c.to === target.e164, 20_000)
    const doc = await exportWhenAnalysed(t, call.id)

    expect(validateArgs(schema as Schema, doc, 'export')).toEqual([])
    expect(doc.call.to).toMatch(E164)
    for (const at of [doc.call.startedAt, doc.call.endedAt]) expect(new Date(at).toISOString()).toBe(at)
    expect(doc.call).toMatchObject({ agentId: target.agentId, agentName: 'Reception', type: 'inbound', outcome: 'completed' })
    expect(doc.transcript.map((i: any) => i.role)).toEqual(['agent', 'user', 'agent', 'user', 'agent'])

    // the structured analysis: one json_schema request, stored, its tokens costed as `analysis`
    const asked = llm.requests.filter((r) => r.body.response_format)
    expect(asked.length).toBe(1)
    expect(asked[0]!.body).toMatchObject({ model: 'gpt-4o-mini', response_format: { type: 'json_schema', json_schema: { name: 'call_analysis', strict: true } } })
    expect(doc.analysis).toMatchObject({ status: 'completed', summary: 'The caller booked a cleaning for Friday at ten.', sentiment: 'positive', isVoicemail: false, model: 'gpt-4o-mini', inputTokens: 400, outputTokens: 60 })
    const price = LLM_PRICES['gpt-4o-mini']!
    expect(doc.cost.analysis).toBeCloseTo((400 * price.inputPerMTok + 60 * price.outputPerMTok) / 1e6, 8)
    expect(doc.cost.analysis).toBeGreaterThan(0)
    expect(doc.cost.total).toBeCloseTo(doc.cost.llm + doc.cost.tts + doc.cost.stt + doc.cost.telephony + doc.cost.analysis, 6)
    expect((await t.api('GET', `/api/calls/${call.id}`)).body.call.cost.analysis).toBe(doc.cost.analysis)

    // the automatic evaluation: the rubric's weighted score, by the model
    expect(doc.evaluations).toEqual([
      expect.objectContaining({ type: 'automatic', score: 75, evaluatorName: 'gpt-4o-mini', criteria: [{ name: 'greeting', score: 90, comment: 'warm' }, { name: 'resolution', score: 70, comment: 'booked' }] }),
    ])

    // the recording behind the signed link, without an API key
    const wav = await fetch(doc.recordingUrl)
    expect(wav.status).toBe(200)
    expect(wav.headers.get('content-type')).toBe('audio/wav')
    expect(Buffer.from(await wav.arrayBuffer()).subarray(0, 4).toString()).toBe('RIFF')

    // the post-call webhook carries the same record, signed
    await until(() => rx.received.length === 1, 10_000, 'the post-call webhook')
    const secret = (await t.api('GET', `/api/workspaces/${t.workspaceId}/webhook-secret`)).body.secret
    const event = new Webhook(secret).verify(rx.received[0]!.body, rx.received[0]!.headers) as any
    expect(event.type).toBe('call.completed')
    expect(validateArgs(schema as Schema, event.data, 'data')).toEqual([])
    expect(event.data.analysis.summary).toBe(doc.analysis.summary)
    expect(event.data.evaluations[0].score).toBe(75)

    // agentName is the name at call time: renaming the agent leaves the export as it was
    expect((await t.api('PUT', `/api/agents/${target.agentId}`, { body: { name: 'Front desk' } })).status).toBe(200)
    expect((await t.api('GET', `/api/calls/${call.id}/export`)).body.call.agentName).toBe('Reception')
  }, 90_000)

  test('a call where nothing was said is analysed offline: no LLM request, no analysis cost', async () => {
    const asked = () => llm.requests.filter((r) => r.body.response_format).length
    const before = asked()
    const id = await seedCall(t.appliance.database.db, { workspaceId: t.workspaceId, transcript: [], outcome: 'no_answer', type: 'outbound' })
    await t.api('POST', `/api/calls/${id}/analysis`)
    const doc = await exportWhenAnalysed(t, id)
    expect(doc.analysis).toMatchObject({ model: '', inputTokens: 0, summary: 'Outbound call, no_answer, 60 s. Nothing was said.' })
    expect(doc.cost.analysis).toBe(0)
    expect(asked()).toBe(before)
  })
})

describe('offline', () => {
  let t: TestAppliance
  beforeAll(async () => {
    t = await startTestAppliance({ VAD_ENGINE: 'silero', STT_PROVIDER: 'none', LLM_PROVIDER: 'none', TTS_PROVIDER: 'flite', BACKGROUND_POLL_MS: 50 })
  })
  afterAll(() => t?.stop())

  test('a real call run by a workflow with no cloud at all gets an offline summary and sentiment, and a schema-valid export', async () => {
    const target = await setupCallTarget(t)
    const graph = {
      nodes: [
        { id: 'start', type: 'start', config: { text: 'Welcome to Acme Dental. We are open from nine to five.' } },
        { id: 'bye', type: 'end', config: { text: 'Thank you for calling. Goodbye.' } },
      ],
      edges: [{ from: 'start', to: 'bye' }],
    }
    expect((await t.api('PUT', `/api/agents/${target.agentId}/workflow`, { body: graph })).status).toBe(200)
    const phone = dialWithBaresip(`sip:${target.e164.slice(1)}@127.0.0.1:${t.appliance.sip.udp}`, microphone([[500, 'hello']], 12_000), { timeoutSec: 30 })
    try {
      expect(await phone.saw('session closed'), phone.output()).toBe(true)
    } finally {
      await phone.stop()
    }
    const call = await waitForCall(t, (c) => c.status === 'ended' && c.to === target.e164, 20_000)
    const doc = await exportWhenAnalysed(t, call.id)
    expect(doc.analysis.model).toBe('')
    expect(doc.analysis.summary).toStartWith('Inbound call, completed,')
    expect(doc.analysis.summary).toContain('Agent: Welcome to Acme Dental.')
    expect(['positive', 'neutral', 'negative']).toContain(doc.analysis.sentiment)
    expect(doc.cost.analysis).toBe(0)
    // the spec's latencies are numbers even for a call whose turns were not measured
    expect(validateArgs(schema as Schema, doc, 'export')).toEqual([])
  }, 60_000)
})
