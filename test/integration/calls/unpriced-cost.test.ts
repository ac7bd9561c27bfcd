// A model the catalogue has no price for: the start names it once at warn and on /ready, and a
// real call that used it (a call worker carries it) names it in cost.unpriced, with the analysis
// by the same model, rather than a cost of 0 passing for a fact.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { concatFrames, writeWav } from '../../../src/realtime/voice/audio.ts'
import { resample } from '../../../src/realtime/voice/resample.ts'
import type { TestAppliance } from '../../helpers/appliance.ts'
import { dialWithBaresip } from '../../helpers/baresip.ts'
import { setupCallTarget, waitForCall } from '../../helpers/calls.ts'
import { startLoggedAppliance } from '../../helpers/logged-appliance.ts'
import { fliteSpeech, silence } from '../../helpers/speech.ts'
import { untilAsync } from '../../helpers/until.ts'
import { startFakeDeepgram, type FakeDeepgram } from '../../fakes/deepgram.ts'
import { startFakeOpenAi, type FakeOpenAi } from '../../fakes/openai.ts'

const WARNING = 'no price for LLM llama3.2: calls leave them out of their cost and name them in cost.unpriced; give them one in VOICE_PRICE_TABLE'
const warnLines = (logs: string[]) => logs.map((l) => JSON.parse(l)).filter((l) => l.level === 40 && String(l.msg).startsWith('no price for'))

describe('a self-hosted model with no price', () => {
  let t: TestAppliance & { logs: string[] }
  let llm: FakeOpenAi
  let stt: FakeDeepgram

  beforeAll(async () => {
    llm = startFakeOpenAi()
    stt = startFakeDeepgram()
    t = await startLoggedAppliance({
      STT_PROVIDER: 'deepgram', DEEPGRAM_BASE_URL: stt.url, DEEPGRAM_API_KEY: 'k',
      LLM_PROVIDER: 'openai', LLM_BASE_URL: llm.url, LLM_API_KEY: 'k', LLM_MODEL: 'llama3.2', TTS_PROVIDER: 'flite',
      BACKGROUND_POLL_MS: 50, VOICE_PRICE_TABLE: JSON.stringify({ telephony: { inbound: 0.6 } }),
    })
  })
  afterAll(async () => {
    await t?.stop()
    llm?.stop()
    stt?.stop()
  })

  test('is named at start in one warning line and in /ready', async () => {
    expect(warnLines(t.logs).map((l) => l.msg)).toEqual([WARNING])
    const ready: any = await fetch(`${t.url}/ready`).then((r) => r.json())
    expect(ready).toMatchObject({ status: 'ready', warnings: [WARNING] })
  })

  test('a call that used it names it in cost.unpriced and costs the rest, and its analysis by that model does too', async () => {
    const target = await setupCallTarget(t, { agent: { welcome: { mode: 'agent_speaks_first', message: 'Hello, how can I help?' } } })
    expect((await t.api('GET', `/api/agents/${target.agentId}`)).body.agent.llmModel).toBe('openai-compatible/llama3.2')
    stt.utterances.push('I would like to book a cleaning please')
    llm.chat.push({ text: '', toolCalls: [{ name: 'end_call', arguments: JSON.stringify({ message: 'You are booked. Goodbye!' }) }], usage: { prompt: 100, completion: 10 } })
    llm.structured.push({ text: JSON.stringify({ summary: 'The caller booked a cleaning.', sentiment: 'positive', isVoicemail: false, scores: [] }), usage: { prompt: 400, completion: 60 } })
    const rate = 16000
    const mic = concatFrames([silence(3000, rate), fliteSpeech('I would like to book a cleaning please'), silence(10_000, rate)])
    const phone = dialWithBaresip(`sip:${target.e164.slice(1)}@127.0.0.1:${t.appliance.sip.udp}`, writeWav({ samples: resample(mic.samples, rate, 8000), sampleRate: 8000 }), { timeoutSec: 40 })
    try {
      expect(await phone.saw('session closed'), phone.output()).toBe(true)
    } finally {
      await phone.stop()
    }
    const call = await waitForCall(t, (c) => c.status === 'ended' && c.to === target.e164, 20_000)
    expect(call).toMatchObject({ outcome: 'completed', endReason: 'agent_hangup' })
    expect(call.metrics).toMatchObject({ model: 'llama3.2', inputTokens: 100, outputTokens: 10 })
    expect(call.cost).toMatchObject({ llm: 0, tts: 0, unpriced: ['llama3.2'] })
    expect(call.cost.telephony).toBeCloseTo((call.duration * 0.6) / 60, 1) // the minutes have their price
    expect(call.cost.total).toBe(call.cost.stt + call.cost.telephony)

    let doc: any
    await untilAsync(async () => {
      doc = (await t.api('GET', `/api/calls/${call.id}/export`)).body
      return doc.analysis.status === 'completed'
    }, 15_000, 'the analysis', 100)
    expect(doc.analysis).toMatchObject({ model: 'llama3.2', inputTokens: 400, outputTokens: 60 })
    expect(doc.cost).toMatchObject({ analysis: 0, total: call.cost.total, unpriced: ['llama3.2'] })
    expect((await t.api('GET', `/api/calls/${call.id}`)).body.call.cost.unpriced).toEqual(['llama3.2'])
  }, 60_000)
})

test('an appliance whose models all have a price warns of none', async () => {
  const t = await startLoggedAppliance({ LLM_PROVIDER: 'openai', LLM_API_KEY: 'k', LLM_BASE_URL: 'http://127.0.0.1:9/v1', LLM_MODEL: 'gpt-4.1-mini', OPENAI_API_KEY: 'k' })
  try {
    expect(warnLines(t.logs)).toEqual([])
    const ready: any = await fetch(`${t.url}/ready`).then((r) => r.json())
    expect(ready.warnings).toBeUndefined()
  } finally {
    await t.stop()
  }
})
