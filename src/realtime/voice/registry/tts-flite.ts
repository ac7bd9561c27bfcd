// flite compiled to WASI, in worker threads that call workers share and that stop while idle.
// Its voices are compiled in: exactly these, none other.
import type { Config } from '../../../platform/config/index.ts'
import { oneOf } from '../settings.ts'
import { FLITE_VOICES, type FliteVoice, FliteTts } from '../tts/flite.ts'
import { type TtsEntry, unloadsWhileIdle } from './entry.ts'

/** All of flite's voices, in the order they are offered (kal is 8 kHz, the others 16 kHz). */
const LISTED: readonly FliteVoice[] = ['slt', 'kal', 'awb', 'rms', 'kal16']

/** FLITE_VOICE, checked: the voice flite speaks with when an agent names none. */
export const configuredFliteVoice = (cfg: Pick<Config, 'FLITE_VOICE'>): FliteVoice => oneOf('FLITE_VOICE', cfg.FLITE_VOICE, FLITE_VOICES)

export const fliteTts: TtsEntry = {
  id: 'flite',
  kind: 'tts',
  name: 'Flite (on-device, 16 kHz)',
  runs: 'resident',
  engineName: 'flite-tts',
  pricing: 'free',
  voices: LISTED,
  available: () => true,
  knowsVoice: (voiceId) => (FLITE_VOICES as readonly string[]).includes(voiceId),
  defaultVoiceId: (cfg) => cfg.FLITE_VOICE,
  fromConfig(cfg, o) {
    const tts = new FliteTts({
      voice: (o.voiceId as FliteVoice | undefined) ?? configuredFliteVoice(cfg),
      speed: o.speed,
      sampleRate: o.sampleRate,
      workers: Math.max(1, Math.floor(cfg.FLITE_WORKERS)),
      idleReleaseMs: cfg.ENGINE_IDLE_RELEASE_MS,
    })
    return {
      engine: tts,
      state: () => {
        const broken = tts.problem()
        return { loaded: tts.loaded, problem: broken && `TTS: ${broken}` }
      },
      idle: unloadsWhileIdle(tts, true),
    }
  },
}
