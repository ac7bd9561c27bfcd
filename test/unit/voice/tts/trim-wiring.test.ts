// Every voice a call can get is trimmed (issue 22): the appliance's default, each agent's own
// voice, and the default that replaces a voice which cannot speak here; each is trimmed once.
import { afterAll, expect, test } from 'bun:test'
import { loadConfig } from '../../../../src/platform/config/index.ts'
import { createVoiceEngines } from '../../../../src/realtime/voice/index.ts'
import { ElevenLabsTts, FliteTts, OpenAiTts, TrimmedTts, type Tts } from '../../../../src/realtime/voice/tts/index.ts'

afterAll(() => FliteTts.shutdown())

const agent = (provider: string, voiceId: string) => ({ llmModel: '', language: 'en-US', voice: { provider, voiceId, speed: 1 } })
const engineOf = (tts: Tts) => (tts instanceof TrimmedTts ? tts.inner : undefined)

test('the default voice and every agent voice reach calls trimmed, over the engine itself', async () => {
  const e = await createVoiceEngines(loadConfig({ VAD_ENGINE: 'energy', STT_PROVIDER: 'none', OPENAI_API_KEY: 'sk', ELEVENLABS_API_KEY: 'xi' }))
  expect(engineOf(e.tts(8000))).toBeInstanceOf(FliteTts)
  expect(e.tts(8000)).toBe(e.tts(8000))
  expect(engineOf(e.forAgent(agent('flite', 'slt'), 8000).tts)).toBeInstanceOf(FliteTts)
  expect(engineOf(e.forAgent(agent('openai', 'alloy'), 8000).tts)).toBeInstanceOf(OpenAiTts)
  expect(engineOf(e.forAgent(agent('elevenlabs', 'v1'), 16000).tts)).toBeInstanceOf(ElevenLabsTts)
  // a voice that cannot speak here falls back to the default, trimmed once, not twice
  const fallback = e.forAgent(agent('flite', 'hal9000'), 8000)
  expect(fallback.fallbacks.length).toBe(1)
  expect(fallback.tts).toBe(e.tts(8000))
  // the engine's workers are still held and reported through the appliance
  const release = e.hold('threads')
  expect(e.loaded().flite).toBe(true)
  release()
  expect(e.problems()).toEqual([])
})
