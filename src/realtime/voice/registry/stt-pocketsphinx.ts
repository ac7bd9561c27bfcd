// CMU pocketsphinx (Debian libpocketsphinx3 + pocketsphinx-en-us) in decoder threads that call
// workers share; its model is freed while idle. The built-in fallback when no model is supplied.
import { PocketsphinxStt } from '../stt/pocketsphinx.ts'
import { type SttEntry, unloadsWhileIdle } from './entry.ts'

export const pocketsphinxStt: SttEntry = {
  id: 'pocketsphinx',
  kind: 'stt',
  name: 'PocketSphinx (on-device fallback)',
  runs: 'resident',
  engineName: 'pocketsphinx-stt',
  pricing: 'free',
  auto: () => PocketsphinxStt.available(),
  fromConfig(cfg) {
    const stt = new PocketsphinxStt({ mode: 'dictation', idleReleaseMs: cfg.ENGINE_IDLE_RELEASE_MS })
    return { engine: stt, state: () => ({ loaded: stt.loaded, problem: stt.problem() }), idle: unloadsWhileIdle(stt, true) }
  },
}
