// Loads a model once in a throw-away process: sherpa-onnx ends the whole process (exit(-1)) on
// some malformed models, which must not take the appliance down with it. The child is the
// appliance's own entry point (the executable itself, or src/main.ts under bun): see helperCommand.
import type { SherpaModel } from './sherpa-model.ts'
import { createRecognizer } from './sherpa-onnx-runtime.ts'

/** Builds the recognizer described by `arg` (JSON); the exit code for the child process. */
export function sherpaProbe(arg: string | undefined): number {
  const { model, numThreads, endpointingMs } = JSON.parse(arg ?? '{}') as { model: SherpaModel; numThreads: number; endpointingMs: number }
  try {
    createRecognizer(model, numThreads, endpointingMs)
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\n`)
    return 1
  }
  return 0
}
