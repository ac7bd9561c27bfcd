// OpenAI speech (24 kHz PCM, resampled to the call's rate). Any voice the model has.
import { connOptions, required } from '../settings.ts'
import { OpenAiTts } from '../tts/openai.ts'
import { remote, type TtsEntry } from './entry.ts'

export const openAiTts: TtsEntry = {
  id: 'openai',
  kind: 'tts',
  name: 'OpenAI TTS',
  runs: 'remote',
  engineName: 'openai-tts',
  // https://platform.openai.com/docs/pricing as of 2026-12; gpt-4o-mini-tts bills text and audio
  // tokens, priced here at OpenAI's own estimate per minute of speech
  pricing: { model: (cfg) => cfg.OPENAI_TTS_MODEL, prices: { 'gpt-4o-mini-tts': { perMinute: 0.015 }, 'tts-1': { perMChars: 15 }, 'tts-1-hd': { perMChars: 30 } } },
  voices: ['alloy', 'ash', 'coral', 'echo', 'nova', 'sage', 'shimmer'],
  available: (cfg) => cfg.OPENAI_API_KEY !== '',
  knowsVoice: () => true,
  defaultVoiceId: (cfg) => cfg.OPENAI_TTS_VOICE,
  endpoint: (cfg) => cfg.OPENAI_BASE_URL,
  fromConfig: (cfg, o) =>
    remote(
      new OpenAiTts({
        baseUrl: cfg.OPENAI_BASE_URL,
        apiKey: required('OPENAI_API_KEY', cfg.OPENAI_API_KEY, 'for TTS_PROVIDER=openai'),
        model: cfg.OPENAI_TTS_MODEL,
        voice: o.voiceId ?? cfg.OPENAI_TTS_VOICE,
        speed: o.speed,
        sampleRate: o.sampleRate,
        conn: connOptions(cfg),
      }),
    ),
}
