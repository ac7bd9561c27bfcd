import { afterAll, describe, expect, test } from 'bun:test'
import { ConfigError, loadConfig } from '../../../src/platform/config/index.ts'
import { createVoiceEngines } from '../../../src/realtime/voice/index.ts'
import { FliteTts } from '../../../src/realtime/voice/tts/index.ts'
import { PocketsphinxStt } from '../../../src/realtime/voice/stt/index.ts'
import { concatFrames } from '../../../src/realtime/voice/audio.ts'
import { drain } from '../../../src/realtime/voice/base.ts'
import { startFakeDeepgram } from '../../fakes/deepgram.ts'
import { fliteSpeech, frames20ms, silence } from '../../helpers/speech.ts'

afterAll(() => FliteTts.shutdown())

describe('voice engine selection from config', () => {
  test('with no configuration at all: Silero VAD, the best local STT, flite, no LLM', async () => {
    const e = await createVoiceEngines(loadConfig({}))
    expect(e.vad.name).toBe('silero-v5')
    expect(e.stt?.provider).toBe(PocketsphinxStt.available() ? 'pocketsphinx-stt' : undefined)
    expect(e.llm).toBeUndefined()
    expect(e.tts(8000)).toMatchObject({ provider: 'flite-tts', sampleRate: 8000 })
    expect(e.tts(8000)).toBe(e.tts(8000))
    expect(e.settings.vad).toEqual({ startThreshold: 0.5, stopThreshold: 0.35, minSpeechMs: 100, minSilenceMs: 400 })
    expect(e.settings.bargeIn.backchannels).toContain('uh-huh')
  })

  test('keys pick the cloud engines in auto mode', async () => {
    const e = await createVoiceEngines(loadConfig({ DEEPGRAM_API_KEY: 'dg', LLM_ANTHROPIC_API_KEY: 'ak', TTS_PROVIDER: 'elevenlabs', ELEVENLABS_API_KEY: 'xi' }))
    expect([e.stt?.provider, e.llm?.provider, e.tts(16000).provider]).toEqual(['deepgram-stt', 'anthropic-llm', 'elevenlabs-tts'])
  })

  test("an agent's calls open recogniser streams with the agent's vocabulary", async () => {
    const deepgram = startFakeDeepgram()
    try {
      deepgram.utterances = ['Friday at noon.']
      const e = await createVoiceEngines(loadConfig({ VAD_ENGINE: 'energy', DEEPGRAM_API_KEY: 'dg', DEEPGRAM_BASE_URL: deepgram.url }))
      const agent = { llmModel: '', language: 'en-US', voice: { provider: 'flite', voiceId: 'slt', speed: 1 } }
      for (const vocabulary of [['Zorblax', 'Quentin Street'], []]) {
        const stream = e.forAgent({ ...agent, vocabulary }, 16000).stt!.stream()
        for (const f of frames20ms(concatFrames([silence(200, 16000), fliteSpeech('Friday at noon.'), silence(1200, 16000)]))) stream.push(f)
        stream.end()
        expect((await drain(stream)).errors).toEqual([])
        expect(deepgram.connections.at(-1)!.query.getAll('keyterm')).toEqual(vocabulary)
      }
    } finally {
      deepgram.stop()
    }
  })

  test('a local OpenAI-compatible server needs only its base URL', async () => {
    const e = await createVoiceEngines(loadConfig({ LLM_BASE_URL: 'http://127.0.0.1:11434/v1', LLM_MODEL: 'llama3.2' }))
    expect([e.llm?.provider, e.llm?.model]).toEqual(['openai-llm', 'llama3.2'])
  })

  test('VAD_ENGINE=energy selects the energy VAD', async () => {
    const e = await createVoiceEngines(loadConfig({ VAD_ENGINE: 'energy' }))
    expect(e.vad.name).toBe('energy')
  })

  const bad: [string, Record<string, string>, RegExp][] = [
    ['an unknown VAD engine', { VAD_ENGINE: 'webrtc' }, /VAD_ENGINE must be one of silero, energy/],
    ['a stop threshold above the start', { VAD_STOP_THRESHOLD: '0.8' }, /VAD_STOP_THRESHOLD must not exceed VAD_START_THRESHOLD/],
    ['a threshold above 1', { VAD_START_THRESHOLD: '1.5' }, /VAD_START_THRESHOLD must be a probability \(0-1\), got 1.5/],
    ['ElevenLabs without a key', { TTS_PROVIDER: 'elevenlabs' }, /ELEVENLABS_API_KEY is required/],
    ['Deepgram without a key', { STT_PROVIDER: 'deepgram' }, /DEEPGRAM_API_KEY is required/],
    ['an unknown flite voice', { FLITE_VOICE: 'hal9000' }, /FLITE_VOICE must be one of/],
  ]
  for (const [name, env, message] of bad) {
    test(`rejects ${name} at start-up with a ConfigError`, async () => {
      // the configuration itself refuses what it can check alone; the engines refuse the rest
      const err = await (async () => createVoiceEngines(loadConfig(env)))().catch((e) => e)
      expect(err).toBeInstanceOf(ConfigError)
      expect(String(err.message)).toMatch(message)
    })
  }
})
