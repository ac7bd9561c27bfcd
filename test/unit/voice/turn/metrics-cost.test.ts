import { describe, expect, test } from 'bun:test'
import { callCost, DEFAULT_PRICES, parsePriceTable, percentile, PriceTableError, summarizeTurns } from '../../../../src/realtime/voice/turn/index.ts'

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
  const prices = parsePriceTable(
    JSON.stringify({
      llm: { 'gpt-test': { inputPerMTok: 1, outputPerMTok: 4 } },
      tts: { 'elevenlabs-tts': 100 },
      stt: { 'deepgram-stt': 0.01 },
      telephony: { inbound: 0.005, outbound: 0.013 },
    }),
  )
  const cases: [string, Parameters<typeof callCost>[1], ReturnType<typeof callCost>][] = [
    [
      'a one-minute cloud call',
      {
        direction: 'inbound',
        durationMs: 60_000,
        llm: [{ model: 'gpt-test', inputTokens: 2000, outputTokens: 500 }],
        tts: [{ provider: 'elevenlabs-tts', characters: 400 }],
        stt: [{ provider: 'deepgram-stt', audioMs: 30_000 }],
      },
      { llm: 0.004, tts: 0.04, stt: 0.005, telephony: 0.005, total: 0.054 },
    ],
    [
      'an offline call costs only its telephony',
      {
        direction: 'outbound',
        durationMs: 90_000,
        llm: [],
        tts: [{ provider: 'flite-tts', characters: 900 }],
        stt: [{ provider: 'pocketsphinx-stt', audioMs: 40_000 }],
      },
      { llm: 0, tts: 0, stt: 0, telephony: 0.0195, total: 0.0195 },
    ],
    [
      'an unknown model falls back to the * price',
      { direction: 'inbound', durationMs: 0, llm: [{ model: 'mystery', inputTokens: 1e6, outputTokens: 1e6 }], tts: [], stt: [] },
      { llm: 0, tts: 0, stt: 0, telephony: 0, total: 0 },
    ],
  ]
  for (const [name, usage, expected] of cases) test(name, () => expect(callCost(prices, usage)).toEqual(expected))

  test('configured prices merge over the defaults', () => {
    expect(prices.llm['gpt-4o-mini']).toEqual(DEFAULT_PRICES.llm['gpt-4o-mini']!)
    expect(prices.tts['elevenlabs-tts']).toBe(100)
    expect(parsePriceTable('')).toBe(DEFAULT_PRICES)
  })

  const bad: [string, RegExp][] = [
    ['not json', /not JSON/],
    ['[]', /JSON object/],
    ['{"gpu": {}}', /unknown price table section gpu/],
    ['{"tts": {"x": -1}}', /tts.x must be a non-negative number/],
    ['{"llm": {"m": {"inputPerMTok": 1}}}', /llm.m.outputPerMTok/],
    ['{"telephony": {"sideways": 1}}', /only inbound and outbound/],
  ]
  for (const [json, message] of bad) test(`rejects ${json}`, () => {
      expect(() => parsePriceTable(json)).toThrow(PriceTableError)
      expect(() => parsePriceTable(json)).toThrow(message)
    })
})
