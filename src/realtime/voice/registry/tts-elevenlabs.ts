// ElevenLabs streaming speech (raw PCM over chunked HTTP). Any voice id the account has.
import { connOptions, required } from '../settings.ts'
import { ElevenLabsTts } from '../tts/elevenlabs.ts'
import { remote, type TtsEntry } from './entry.ts'

export const elevenLabsTts: TtsEntry = {
  id: 'elevenlabs',
  kind: 'tts',
  name: 'ElevenLabs',
  runs: 'remote',
  engineName: 'elevenlabs-tts',
  // API, per character: https://elevenlabs.io/pricing/api as of 2026-12 ($0.05 and $0.10 per 1,000)
  pricing: {
    model: (cfg) => cfg.ELEVENLABS_MODEL,
    prices: {
      eleven_flash_v2_5: { perMChars: 50 }, eleven_flash_v2: { perMChars: 50 }, eleven_turbo_v2_5: { perMChars: 50 }, eleven_turbo_v2: { perMChars: 50 },
      eleven_multilingual_v2: { perMChars: 100 }, eleven_v3: { perMChars: 100 },
    },
  },
  voices: ['21m00Tcm4TlvDq8ikWAM', 'EXAVITQu4vr4xnSDxMaL'],
  available: (cfg) => cfg.ELEVENLABS_API_KEY !== '',
  knowsVoice: () => true,
  defaultVoiceId: (cfg) => cfg.ELEVENLABS_VOICE_ID,
  endpoint: (cfg) => cfg.ELEVENLABS_BASE_URL,
  fromConfig: (cfg, o) =>
    remote(
      new ElevenLabsTts({
        baseUrl: cfg.ELEVENLABS_BASE_URL,
        apiKey: required('ELEVENLABS_API_KEY', cfg.ELEVENLABS_API_KEY, 'for TTS_PROVIDER=elevenlabs'),
        voiceId: o.voiceId ?? cfg.ELEVENLABS_VOICE_ID,
        modelId: cfg.ELEVENLABS_MODEL,
        sampleRate: o.sampleRate,
        conn: connOptions(cfg),
      }),
    ),
}
