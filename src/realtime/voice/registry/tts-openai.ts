// OpenAI speech (24 kHz PCM, resampled to the call's rate). Any voice the model has.
import { connOptions, required } from '../settings.ts'
import { OpenAiTts } from '../tts/openai.ts'
import { remote, type TtsEntry } from './entry.ts'

export const openAiTts: TtsEntry = {
  id: 'openai',
  kind: 'tts',
  name: 'OpenAI TTS',
  runs: 'remote',
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
