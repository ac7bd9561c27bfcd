// sherpa-onnx with the operator's models from STT_SHERPA_MODEL_DIR, each in a worker thread of
// its own. With several models, a call gets the one whose folder names its agent's language.
import { resolve } from 'node:path'
import { type Config, ConfigError } from '../../../platform/config/index.ts'
import { sherpaByLanguage } from '../stt-languages.ts'
import { STT_FINAL_SILENCE_MS } from '../stt/contract.ts'
import { findSherpaModel, type SherpaModel } from '../stt/sherpa-model.ts'
import { SherpaOnnxStt, sherpaRuntime } from '../stt/sherpa-onnx.ts'
import { type SttEntry, withLanguage } from './entry.ts'

/** The model of STT_SHERPA_MODEL_DIR a start loads (the first usable one by name); a ConfigError when it holds none. */
export function configuredSherpaModel(cfg: Pick<Config, 'STT_SHERPA_MODEL_DIR'>): { root: string; model: SherpaModel } {
  const root = resolve(cfg.STT_SHERPA_MODEL_DIR)
  const { model, problems } = findSherpaModel(root)
  if (!model) throw new ConfigError(`STT_SHERPA_MODEL_DIR: no usable sherpa-onnx model in ${root}${problems.length ? ` (${problems.join('; ')})` : ''}`)
  return { root, model }
}

export const sherpaOnnxStt: SttEntry = {
  id: 'sherpa-onnx',
  kind: 'stt',
  name: 'sherpa-onnx (on-device, operator-supplied model)',
  runs: 'resident',
  engineName: 'sherpa-onnx-stt',
  pricing: 'free',
  auto: (cfg) => sherpaRuntime().ok && findSherpaModel(resolve(cfg.STT_SHERPA_MODEL_DIR)).model !== undefined,
  async fromConfig(cfg) {
    const { root, model } = configuredSherpaModel(cfg)
    let stt: SherpaOnnxStt
    try {
      stt = await SherpaOnnxStt.load({ modelDir: model.dir, endpointingMs: STT_FINAL_SILENCE_MS })
    } catch (err) {
      const why = (err as Error).message
      // chosen by name, a model that cannot load stops the start; picked by auto, the next engine is tried
      if (cfg.STT_PROVIDER === 'sherpa-onnx') throw new ConfigError(`STT_PROVIDER=sherpa-onnx: ${why}`)
      throw new Error(`the sherpa-onnx model in ${model.dir} could not be loaded (${why})`)
    }
    const notes = [`STT: sherpa-onnx, ${model.description} from ${model.dir}`]
    const byLanguage = await sherpaByLanguage(stt, root, STT_FINAL_SILENCE_MS, notes)
    return { engine: stt, notes, state: () => ({}), forLanguage: (language) => withLanguage(byLanguage(language), language) }
  },
}
