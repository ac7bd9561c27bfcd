// The prices calls are costed at live with the catalogue: every model it offers has one, keyed by
// the registry's ids; VOICE_PRICE_TABLE wins over them; a model calls may run that has no price is
// named, never costed as 0.
import { afterAll, expect, test } from 'bun:test'
import { ConfigError, loadConfig } from '../../../src/platform/config/index.ts'
import { LLM_PRICES, LLM_PROVIDERS, priceTableFor, providerOfEngine, providersOf, unpricedModels } from '../../../src/realtime/voice/registry/index.ts'
import { FliteTts } from '../../../src/realtime/voice/tts/index.ts'

afterAll(() => FliteTts.shutdown())

test('every language model the catalogue offers has a list price, and nothing else has one', () => {
  const offered = LLM_PROVIDERS.filter((p) => p.backend).flatMap((p) => p.models.map((m) => `${p.id}/${m}`))
  expect(offered.length).toBeGreaterThan(0)
  expect(offered.filter((m) => !LLM_PRICES[m.slice(m.indexOf('/') + 1)])).toEqual([])
  for (const p of LLM_PROVIDERS) expect(Object.keys(p.prices).filter((m) => !p.models.includes(m))).toEqual([])
  // a list price of 0 would be the silent 0 again
  for (const [model, price] of Object.entries(LLM_PRICES)) expect(price.inputPerMTok > 0 && price.outputPerMTok > 0, model).toBe(true)
})

test('every speech provider prices the model it runs by default; the ones on this machine cost nothing', () => {
  const table = priceTableFor(loadConfig({}))
  for (const kind of ['stt', 'tts'] as const) {
    for (const e of providersOf(kind)) {
      const price = table[kind][e.id]?.price
      expect(price, `${kind} ${e.id}`).toBeDefined()
      const free = price === 0 || (typeof price === 'object' && Object.values(price).every((n) => n === 0))
      expect(free, `${kind} ${e.id}`).toBe(e.runs === 'resident')
    }
  }
  expect(table.stt.deepgram).toEqual({ model: 'nova-3', price: 0.0077 })
  expect(table.tts.openai).toEqual({ model: 'gpt-4o-mini-tts', price: { perMinute: 0.015 } })
})

test('each speech provider knows the name its engines give themselves', async () => {
  const cfg = loadConfig({ DEEPGRAM_API_KEY: 'k', OPENAI_API_KEY: 'k', ELEVENLABS_API_KEY: 'k' })
  for (const e of providersOf('tts')) {
    expect(e.fromConfig(cfg, { sampleRate: 8000 }).engine.provider).toBe(e.engineName)
    expect(providerOfEngine('tts', e.engineName)).toBe(e)
  }
  // the on-device recognisers need their libraries and models; the cloud ones only a key
  for (const e of providersOf('stt').filter((e) => e.runs === 'remote')) {
    expect((await e.fromConfig(cfg, {})).engine.provider).toBe(e.engineName)
    expect(providerOfEngine('stt', e.engineName)).toBe(e)
  }
  expect(providerOfEngine('stt', 'sherpa-onnx-stt')?.id).toBe('sherpa-onnx')
  expect(providerOfEngine('stt', 'tone-stt')).toBeUndefined()
})

test('a speech model the catalogue does not list has no price until the operator gives it one by provider id', () => {
  const cfg = loadConfig({ DEEPGRAM_MODEL: 'nova-2', OPENAI_TTS_MODEL: 'tts-1-hd' })
  expect(priceTableFor(cfg).stt.deepgram).toEqual({ model: 'nova-2', price: undefined })
  expect(priceTableFor(cfg).tts.openai).toEqual({ model: 'tts-1-hd', price: { perMChars: 30 } })
  const priced = priceTableFor({ ...cfg, VOICE_PRICE_TABLE: JSON.stringify({ stt: { deepgram: 0.0058 }, llm: { 'gpt-4o': { inputPerMTok: 1, outputPerMTok: 2 } } }) })
  expect(priced.stt.deepgram).toEqual({ model: 'nova-2', price: 0.0058 })
  expect(priced.llm['gpt-4o']).toEqual({ inputPerMTok: 1, outputPerMTok: 2 })
  expect(priced.llm['gpt-4.1']).toEqual(LLM_PRICES['gpt-4.1']!)
})

test('a price table that cannot be read stops the start with a ConfigError naming VOICE_PRICE_TABLE', () => {
  const cases: [string, RegExp][] = [
    ['{oops', /^VOICE_PRICE_TABLE: price table is not JSON/],
    ['{"tts": {"elevenlabs-tts": 50}}', /^VOICE_PRICE_TABLE: tts.elevenlabs-tts: no TTS provider has that id; use one of flite, elevenlabs, openai$/],
  ]
  for (const [json, message] of cases) {
    const err = (() => {
      try {
        priceTableFor(loadConfig({ VOICE_PRICE_TABLE: json }))
      } catch (e) {
        return e as Error
      }
    })()
    expect(err).toBeInstanceOf(ConfigError)
    expect(err!.message).toMatch(message)
  }
})

test('the models calls may run that have no price are named with their kind and provider', () => {
  const cfg = loadConfig({ DEEPGRAM_MODEL: 'nova-2' })
  const inUse = { llm: ['llama3.2', 'gpt-4o-mini'], stt: ['deepgram'], tts: ['flite', 'elevenlabs'] }
  expect(unpricedModels(priceTableFor(cfg), inUse)).toEqual(['LLM llama3.2', 'STT deepgram nova-2'])
  const priced = priceTableFor({ ...cfg, VOICE_PRICE_TABLE: JSON.stringify({ llm: { 'llama3.2': { inputPerMTok: 0, outputPerMTok: 0 } }, stt: { deepgram: 0.0058 } }) })
  expect(unpricedModels(priced, inUse)).toEqual([])
  expect(unpricedModels(priceTableFor(loadConfig({ VOICE_PRICE_TABLE: '{"llm": {"*": {"inputPerMTok": 1, "outputPerMTok": 1}}}' })), inUse)).toEqual([])
})
