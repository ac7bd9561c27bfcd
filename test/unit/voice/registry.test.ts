// The provider registry: a provider is one file of src/realtime/voice/registry/ and one line of its list,
// and what the configuration serves is read from the entries alone.
import { expect, test } from 'bun:test'
import { readdirSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { loadConfig } from '../../../src/platform/config/index.ts'
import { defaultLlmModel, defaultVoice, llmRoute, servingFromConfig } from '../../../src/realtime/voice/registry/index.ts'
import { PROVIDERS, providerOf } from '../../../src/realtime/voice/registry/index.ts'
import { FLITE_VOICES } from '../../../src/realtime/voice/tts/index.ts'

const REGISTRY = resolve(import.meta.dir, '../../../src/realtime/voice/registry')
/** The registry's own files; every other file there is one provider. */
const FRAME = ['entry.ts', 'list.ts', 'choose.ts', 'catalog.ts', 'serving.ts', 'prices.ts', 'index.ts']

test('every provider file exports one entry, listed once, with an id unique within its kind', async () => {
  const files = readdirSync(REGISTRY).filter((f) => f.endsWith('.ts') && !FRAME.includes(f))
  const exported = await Promise.all(files.map(async (f) => Object.values(await import(join(REGISTRY, f))).filter((v) => typeof v === 'object' && v !== null && 'kind' in v)))
  expect(exported.map((e) => e.length)).toEqual(files.map(() => 1))
  expect(new Set(exported.flat())).toEqual(new Set(PROVIDERS))
  expect(PROVIDERS.length).toBe(files.length)
  const keys = PROVIDERS.map((e) => `${e.kind}:${e.id}`)
  expect(new Set(keys).size).toBe(keys.length)
  // each file is named for what it provides
  for (const [i, f] of files.entries()) expect(f.startsWith(`${(exported[i]![0] as { kind: string }).kind}-`)).toBe(true)
})

test("flite's entry lists exactly the voices compiled into flite, and refuses others", () => {
  const flite = providerOf('tts', 'flite')!
  expect([...flite.voices].sort()).toEqual([...FLITE_VOICES].sort())
  expect(flite.knowsVoice('hal9000')).toBe(false)
  expect(providerOf('tts', 'elevenlabs')!.knowsVoice('any-account-voice')).toBe(true)
})

test('what the configuration serves: LLM backends preferred first, voices that have their keys', () => {
  expect(servingFromConfig(loadConfig({}))).toEqual({ llm: [], voice: ['flite'] })
  const both = loadConfig({ LLM_ANTHROPIC_API_KEY: 'ak', LLM_API_KEY: 'sk', OPENAI_API_KEY: 'sk', ELEVENLABS_API_KEY: 'xi' })
  expect(servingFromConfig(both)).toEqual({ llm: ['anthropic', 'openai'], voice: ['flite', 'elevenlabs', 'openai'] })
  expect(servingFromConfig({ ...both, LLM_PROVIDER: 'openai' }).llm).toEqual(['openai'])
  expect(servingFromConfig({ ...both, LLM_PROVIDER: 'none' }).llm).toEqual([])
})

test("an agent's model is routed to the backend its catalog family names, or told what the configuration lacks", () => {
  const local = servingFromConfig(loadConfig({ LLM_BASE_URL: 'http://127.0.0.1:11434/v1' }))
  expect(llmRoute('openai-compatible/llama3.2', local)).toEqual({ ok: true, backend: 'openai', model: 'llama3.2' })
  expect(llmRoute('llama-3.1-8b-instant', local)).toEqual({ ok: true, backend: 'openai', model: 'llama-3.1-8b-instant' })
  const claude = llmRoute('claude-haiku-4-5', local)
  expect(claude.ok ? '' : claude.problem).toBe("the configured LLM cannot serve 'claude-haiku-4-5': claude-haiku-4-5 needs LLM_ANTHROPIC_API_KEY")
  const workflow = llmRoute('workflow', local)
  expect(workflow.ok ? '' : workflow.problem).toBe("llmModel is 'workflow': the agent has no language model")
})

test("a new agent gets the configured backend's model and the configured voice", () => {
  expect(defaultLlmModel(loadConfig({ LLM_BASE_URL: 'http://127.0.0.1:11434/v1', LLM_MODEL: 'llama3.2' }), 'workflow')).toBe('openai-compatible/llama3.2')
  expect(defaultLlmModel(loadConfig({ LLM_ANTHROPIC_API_KEY: 'ak' }), 'workflow')).toBe(loadConfig({}).LLM_ANTHROPIC_MODEL)
  expect(defaultLlmModel(loadConfig({}), 'workflow')).toBe('workflow')
  expect(defaultVoice(loadConfig({ TTS_PROVIDER: 'openai', OPENAI_TTS_VOICE: 'nova' }))).toEqual({ provider: 'openai', voiceId: 'nova', speed: 1 })
  expect(defaultVoice(loadConfig({ FLITE_VOICE: 'awb' }))).toEqual({ provider: 'flite', voiceId: 'awb', speed: 1 })
})
