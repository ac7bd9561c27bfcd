import { describe, expect, test } from 'bun:test'
import { callCost, parsePriceTable, percentile, type PriceTable, PriceTableError, summarizeTurns } from '../../../../src/realtime/voice/turn/index.ts'

describe('latency percentiles', () => {
  const cases: [number[], number, number | null][] = [
    [[], 50, null],
    [[7], 99, 7],
    [[1, 2, 3, 4], 50, 2],
    [[4, 3, 2, 1], 99, 4],
    [Array.from({ length: 100 }, (_, i) => i + 1), 99, 99],
    [Array.from({ length: 100 }, (_, i) => i + 1), 50, 50],
    [[10, Number.NaN, 30], 50, 10],
  ]
  for (const [values, p, expected] of cases) test(`p${p} of ${values.length} values is ${expected}`, () => expect(percentile(values, p)).toBe(expected))

  test('rejects a percentile outside (0, 100]', () => expect(() => percentile([1], 0)).toThrow(RangeError))

  test('summarizes each latency over the turns that measured it', () => {
    const s = summarizeTurns([
      { endpointingMs: 300, voiceToVoiceMs: 900, llmTtftMs: 200 },
      { endpointingMs: 500, voiceToVoiceMs: 1100 },
      { endpointingMs: 400, voiceToVoiceMs: 700, llmTtftMs: 400 },
    ])
    expect(s.endpointingMs).toEqual({ count: 3, p50: 400, p99: 500, max: 500 })
    expect(s.llmTtftMs).toEqual({ count: 2, p50: 200, p99: 400, max: 400 })
    expect(s.ttsTtfbMs).toEqual({ count: 0, p50: null, p99: null, max: null })
  })
})

describe('call cost from a price table', () => {
  const prices: PriceTable = {
    llm: { 'gpt-test': { inputPerMTok: 1, outputPerMTok: 4 }, 'gpt-cached': { inputPerMTok: 2, cachedInputPerMTok: 0.5, outputPerMTok: 8 } },
    tts: { elevenlabs: { model: 'eleven_flash_v2_5', price: { perMChars: 100 } }, openai: { model: 'gpt-4o-mini-tts', price: { perMinute: 0.015 } }, flite: { model: 'flite', price: { perMChars: 0 } } },
    stt: { deepgram: { model: 'nova-3', price: 0.01 }, pocketsphinx: { model: 'pocketsphinx', price: 0 }, openai: { model: 'whisper-9' } },
    telephony: { inbound: 0.005, outbound: 0.013 },
  }
  const cases: [string, Parameters<typeof callCost>[1], ReturnType<typeof callCost>][] = [
    [
      'a one-minute cloud call',
      {
        direction: 'inbound',
        durationMs: 60_000,
        llm: [{ model: 'gpt-test', inputTokens: 2000, outputTokens: 500 }],
        tts: [{ provider: 'elevenlabs', characters: 400, audioMs: 20_000 }],
        stt: [{ provider: 'deepgram', audioMs: 30_000 }],
      },
      { llm: 0.004, tts: 0.04, stt: 0.005, telephony: 0.005, total: 0.054 },
    ],
    [
      'an offline call costs only its telephony',
      {
        direction: 'outbound',
        durationMs: 90_000,
        llm: [],
        tts: [{ provider: 'flite', characters: 900, audioMs: 50_000 }],
        stt: [{ provider: 'pocketsphinx', audioMs: 40_000 }],
      },
      { llm: 0, tts: 0, stt: 0, telephony: 0.0195, total: 0.0195 },
    ],
    [
      'input tokens from the prompt cache cost the cached price',
      { direction: 'web', durationMs: 0, llm: [{ model: 'gpt-cached', inputTokens: 1e6, cachedInputTokens: 8e5, outputTokens: 0 }], tts: [], stt: [] },
      { llm: 0.8, tts: 0, stt: 0, telephony: 0, total: 0.8 }, // 200k at $2/M + 800k at $0.50/M
    ],
    [
      'a voice priced by the minute costs the minutes it spoke',
      { direction: 'stream', durationMs: 0, llm: [], tts: [{ provider: 'openai', characters: 1000, audioMs: 120_000 }], stt: [] },
      { llm: 0, tts: 0.03, stt: 0, telephony: 0, total: 0.03 },
    ],
    [
      'a model with no price is named in unpriced, not costed as 0',
      {
        direction: 'inbound',
        durationMs: 60_000,
        llm: [{ model: 'mystery', inputTokens: 1e6, outputTokens: 1e6 }, { model: 'gpt-test', inputTokens: 1e6, outputTokens: 0 }],
        tts: [{ provider: 'tone-tts', characters: 10, audioMs: 500 }],
        stt: [{ provider: 'openai', audioMs: 60_000 }],
      },
      { llm: 1, tts: 0, stt: 0, telephony: 0.005, total: 1.005, unpriced: ['mystery', 'tone-tts', 'whisper-9'] },
    ],
    [
      'a model used for nothing is not unpriced',
      { direction: 'web', durationMs: 0, llm: [{ model: 'mystery', inputTokens: 0, outputTokens: 0 }], tts: [], stt: [{ provider: 'openai', audioMs: 0 }] },
      { llm: 0, tts: 0, stt: 0, telephony: 0, total: 0 },
    ],
  ]
  for (const [name, usage, expected] of cases) test(name, () => expect(callCost(prices, usage)).toEqual(expected))

  test("the operator's * prices every language model the table does not name", () => {
    const usage = { direction: 'web' as const, durationMs: 0, llm: [{ model: 'mystery', inputTokens: 1e6, outputTokens: 0 }], tts: [], stt: [] }
    expect(callCost({ ...prices, llm: { '*': { inputPerMTok: 3, outputPerMTok: 3 } } }, usage)).toEqual({ llm: 3, tts: 0, stt: 0, telephony: 0, total: 3 })
  })

  test('configured prices merge over the base, speech by provider id for the model it runs', () => {
    const merged = parsePriceTable(
      JSON.stringify({ llm: { 'gpt-new': { inputPerMTok: 1, outputPerMTok: 2, cachedInputPerMTok: 0.1 } }, tts: { elevenlabs: 60, openai: { perMinute: 0.02 } }, stt: { openai: 0.004 } }),
      prices,
    )
    expect(merged.llm['gpt-test']).toEqual(prices.llm['gpt-test']!)
    expect(merged.llm['gpt-new']).toEqual({ inputPerMTok: 1, outputPerMTok: 2, cachedInputPerMTok: 0.1 })
    expect(merged.tts.elevenlabs).toEqual({ model: 'eleven_flash_v2_5', price: { perMChars: 60 } })
    expect(merged.tts.openai).toEqual({ model: 'gpt-4o-mini-tts', price: { perMinute: 0.02 } })
    expect(merged.stt.openai).toEqual({ model: 'whisper-9', price: 0.004 })
    expect(parsePriceTable('', prices)).toBe(prices)
  })

  const bad: [string, RegExp][] = [
    ['not json', /not JSON/],
    ['[]', /JSON object/],
    ['{"gpu": {}}', /unknown price table section gpu/],
    ['{"tts": {"flite": -1}}', /tts.flite must be a non-negative number/],
    ['{"tts": {"openai": {"perSecond": 1}}}', /tts.openai must be a number \(per million characters\) or \{"perMinute": n\}/],
    ['{"tts": {"elevenlabs-tts": 50}}', /tts.elevenlabs-tts: no TTS provider has that id; use one of elevenlabs, openai, flite/],
    ['{"stt": {"deepgram-stt": 0.01}}', /stt.deepgram-stt: no STT provider has that id; use one of deepgram, pocketsphinx, openai/],
    ['{"llm": {"m": {"inputPerMTok": 1}}}', /llm.m.outputPerMTok/],
    ['{"telephony": {"sideways": 1}}', /only inbound and outbound/],
  ]
  for (const [json, message] of bad) test(`rejects ${json}`, () => {
      expect(() => parsePriceTable(json, prices)).toThrow(PriceTableError)
      expect(() => parsePriceTable(json, prices)).toThrow(message)
    })
})
