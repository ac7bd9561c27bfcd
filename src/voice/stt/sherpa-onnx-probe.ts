// Loads a model once in a throw-away process: sherpa-onnx ends the whole process (exit(-1)) on
// some malformed models, which must not take the appliance down with it.
import type { SherpaModel } from './sherpa-model.ts'
import { createRecognizer } from './sherpa-onnx-runtime.ts'

const { model, numThreads, endpointingMs } = JSON.parse(process.argv[2] ?? '{}') as { model: SherpaModel; numThreads: number; endpointingMs: number }
try {
  createRecognizer(model, numThreads, endpointingMs)
} catch (err) {
  process.stderr.write(`${(err as Error).message}\n`)
  process.exit(1)
}
process.exit(0)
