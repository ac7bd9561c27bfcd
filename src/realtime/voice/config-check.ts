// The voice keys, checked before anything starts: the start-up reads the configuration with this
// beside loadConfig (app/startup/config.ts), for check-config, every command and serve alike. The
// configuration layer cannot: which providers exist is the registry's. Loading an engine is
// still the start's (a model that is there but broken shows when it loads).
import type { Config } from '../../platform/config/index.ts'
import { chosenName, type OverridesOf, priceTableFor, type ProviderKind, providerOf } from './registry/index.ts'
import { configuredSherpaModel } from './registry/stt-sherpa-onnx.ts'
import { configuredFliteVoice } from './registry/tts-flite.ts'
import { voiceSettings } from './settings.ts'

const NO_OVERRIDES: OverridesOf = { vad: {}, stt: {}, llm: {}, tts: { sampleRate: 8000 } }
const KINDS: readonly ProviderKind[] = ['vad', 'stt', 'llm', 'tts']

/** Throws a ConfigError naming the first voice key that cannot be used. */
export async function checkVoiceConfig(cfg: Config): Promise<void> {
  voiceSettings(cfg)
  priceTableFor(cfg)
  configuredFliteVoice(cfg)
  for (const kind of KINDS) {
    const entry = providerOf(kind, chosenName(kind, cfg))
    // a cloud engine is built from the configuration alone (no request is sent): building it is
    // what checks the keys it needs
    if (entry?.runs === 'remote') await entry.fromConfig(cfg, NO_OVERRIDES[kind] as never)
  }
  // the folder, not the load: sherpa-onnx loads a model in a child process of its own
  if (cfg.STT_PROVIDER === 'sherpa-onnx') configuredSherpaModel(cfg)
}
