// Local STT per caller language: with several sherpa-onnx models in STT_SHERPA_MODEL_DIR, each
// is loaded, and a call gets the one whose folder names its agent's language.
import { findSherpaModels, SherpaOnnxStt, sherpaModelFor, type Stt } from './stt/index.ts'

/** At most this many models are loaded besides the first (each holds its model in memory). */
const MAX_EXTRA_MODELS = 3

export async function sherpaByLanguage(first: SherpaOnnxStt, root: string, endpointingMs: number, notes: string[]): Promise<(language: string) => Stt> {
  const loaded = [first]
  for (const model of findSherpaModels(root).filter((m) => m.dir !== first.model.dir).slice(0, MAX_EXTRA_MODELS)) {
    try {
      loaded.push(await SherpaOnnxStt.load({ modelDir: model.dir, endpointingMs }))
      notes.push(`STT: also sherpa-onnx, ${model.description} from ${model.dir}, for agents whose language it names`)
    } catch (err) {
      notes.push(`STT: sherpa-onnx model skipped (${(err as Error).message})`)
    }
  }
  const byDir = new Map(loaded.map((s) => [s.model.dir, s]))
  return (language) => byDir.get(sherpaModelFor(loaded.map((s) => s.model), language)!.dir)!
}
