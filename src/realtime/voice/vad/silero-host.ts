// The Silero host: a child process that holds onnxruntime and the Silero session and scores the
// batches its parent puts in their shared memory (silero-wire.ts). It exists so that
// onnxruntime's 40-odd MB (its library pages stay mapped for good once loaded) leave with the
// process when the appliance is idle. It ends when stdin closes (the parent ended or let it go),
// when its parent changes, and after `idleExitMs` without a request: a call worker thread that is
// terminated or crashes leaves its pipe open in the living parent, and nothing else would end it.
import { readFileSync } from 'node:fs'
import { preloadOnnxRuntime } from '../../../platform/embedded/index.ts'
import { decodeRequest, encodeFailure, encodeReply, MessageReader, sharedAreas, STATE_WIDTH } from './silero-wire.ts'

export interface SileroHostArgs {
  model: string
  /** The shared memory file (the parent removes its name once the host is ready). */
  shared: string
  idleExitMs: number
}

/** Runs until stdin ends; resolves with the exit code. */
export async function runSileroHost(args: SileroHostArgs): Promise<number> {
  const out = Bun.stdout.writer()
  const send = (bytes: Uint8Array) => {
    try {
      out.write(bytes)
      out.flush()
    } catch {
      process.exit(0) // the parent closed its end: nobody is left to answer
    }
  }
  let ort: typeof import('onnxruntime-node')
  let session: import('onnxruntime-node').InferenceSession
  let areas: ReturnType<typeof sharedAreas>
  try {
    areas = sharedAreas(Bun.mmap(args.shared, { shared: true }))
    preloadOnnxRuntime()
    ort = await import('onnxruntime-node')
    session = await ort.InferenceSession.create(readFileSync(args.model), { intraOpNumThreads: 1, interOpNumThreads: 1, graphOptimizationLevel: 'all' })
  } catch (err) {
    send(encodeFailure(`Silero could not be loaded: ${(err as Error).message}`))
    await out.end()
    return 1
  }
  send(encodeReply(0))

  const parent = process.ppid
  let lastRequest = Date.now()
  const watch = setInterval(() => {
    if (process.ppid !== parent || (args.idleExitMs > 0 && Date.now() - lastRequest > args.idleExitMs)) process.exit(0)
  }, 1000)
  const rates = new Map<number, import('onnxruntime-node').Tensor>()
  const reader = new MessageReader()
  for await (const chunk of Bun.stdin.stream()) {
    lastRequest = Date.now()
    let bodies: Uint8Array[]
    try {
      bodies = reader.push(chunk)
    } catch (err) {
      // the stream has lost its framing: nothing after this can be read
      process.stderr.write(`Silero host: ${(err as Error).message}\n`)
      return 2
    }
    for (const body of bodies) {
      try {
        const r = decodeRequest(body)
        let sr = rates.get(r.sampleRate)
        if (!sr) rates.set(r.sampleRate, (sr = new ort.Tensor('int64', BigInt64Array.from([BigInt(r.sampleRate)]), [])))
        const stateLen = 2 * r.rows * STATE_WIDTH
        const result = await session.run({
          input: new ort.Tensor('float32', areas.input.subarray(0, r.rows * r.width), [r.rows, r.width]),
          state: new ort.Tensor('float32', areas.state.subarray(0, stateLen), [2, r.rows, STATE_WIDTH]),
          sr,
        })
        areas.output.set(result.output!.data as Float32Array)
        areas.state.set(result.stateN!.data as Float32Array)
        send(encodeReply(r.rows))
      } catch (err) {
        send(encodeFailure((err as Error).message))
      }
    }
  }
  clearInterval(watch)
  return 0
}
