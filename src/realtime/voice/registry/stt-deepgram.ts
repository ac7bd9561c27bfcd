// Deepgram streaming recognition over a WebSocket; STT_PROVIDER=auto prefers it when it has a key.
import { connOptions, required } from '../settings.ts'
import { STT_FINAL_SILENCE_MS } from '../stt/contract.ts'
import { DeepgramStt } from '../stt/deepgram.ts'
import { remote, type SttEntry, withLanguage } from './entry.ts'

export const deepgramStt: SttEntry = {
  id: 'deepgram',
  kind: 'stt',
  name: 'Deepgram streaming',
  runs: 'remote',
  engineName: 'deepgram-stt',
  // streaming, pay as you go, https://deepgram.com/pricing as of 2026-12; nova-3 with
  // STT_LANGUAGE=multi bills more and other models are not listed here
  pricing: { model: (cfg) => cfg.DEEPGRAM_MODEL, prices: { 'nova-3': 0.0077 } },
  auto: (cfg) => cfg.DEEPGRAM_API_KEY !== '',
  endpoint: (cfg) => cfg.DEEPGRAM_BASE_URL,
  fromConfig(cfg) {
    const stt = new DeepgramStt({
      baseUrl: cfg.DEEPGRAM_BASE_URL,
      apiKey: required('DEEPGRAM_API_KEY', cfg.DEEPGRAM_API_KEY, 'for STT_PROVIDER=deepgram'),
      model: cfg.DEEPGRAM_MODEL,
      language: cfg.STT_LANGUAGE,
      endpointingMs: STT_FINAL_SILENCE_MS,
      utteranceEndMs: 1000,
      conn: connOptions(cfg),
    })
    return remote(stt, (language) => withLanguage(stt, language))
  },
}
