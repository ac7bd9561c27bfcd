// OpenAI transcription: one request per utterance. It takes ISO 639-1 languages (de), where the
// appliance and the other providers use BCP 47 (de-DE).
import { connOptions, required } from '../settings.ts'
import { OpenAiStt } from '../stt/openai.ts'
import { remote, type SttEntry, withLanguage } from './entry.ts'

const iso639 = (language: string) => language.split('-')[0]!

export const openAiStt: SttEntry = {
  id: 'openai',
  kind: 'stt',
  name: 'OpenAI transcription',
  runs: 'remote',
  engineName: 'openai-stt',
  // https://platform.openai.com/docs/pricing as of 2026-12 (the gpt-4o models' per-minute estimates; they bill by token)
  pricing: { model: (cfg) => cfg.OPENAI_STT_MODEL, prices: { 'gpt-4o-transcribe': 0.006, 'gpt-4o-mini-transcribe': 0.003, 'whisper-1': 0.006 } },
  auto: (cfg) => cfg.OPENAI_API_KEY !== '',
  endpoint: (cfg) => cfg.OPENAI_BASE_URL,
  fromConfig(cfg) {
    const stt = new OpenAiStt({
      baseUrl: cfg.OPENAI_BASE_URL,
      apiKey: required('OPENAI_API_KEY', cfg.OPENAI_API_KEY, 'for STT_PROVIDER=openai'),
      model: cfg.OPENAI_STT_MODEL,
      language: iso639(cfg.STT_LANGUAGE),
      conn: connOptions(cfg),
    })
    return remote(stt, (language) => withLanguage(stt, iso639(language)))
  },
}
