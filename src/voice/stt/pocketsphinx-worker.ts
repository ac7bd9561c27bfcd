// Decodes utterances off the main thread: a dictation decode takes ~0.15 s per second of audio,
// which would otherwise stall every call's audio on the event loop.
import { loadNative, SphinxDecoder, type SphinxMode, trimHeap } from './pocketsphinx-ffi.ts'

export interface SphinxJob {
  id: number
  mode: SphinxMode
  modelDir: string
  samples: Int16Array
}

export type SphinxResult = { id: number; ok: true; text: string } | { id: number; ok: false; error: string }

/** Frees the decoders (the en-us model is about 90 MB of native memory); the next job loads them again. */
export interface SphinxRelease {
  release: true
}

const decoders = new Map<string, SphinxDecoder>()

/** Asks the worker to also take jobs from another thread on `attach` (a call worker sharing it). */
export interface SphinxAttach {
  attach: MessagePort
}

function decode(job: SphinxJob): SphinxResult {
  const { id, mode, modelDir, samples } = job
  try {
    const n = loadNative()
    if (!n) throw new Error('pocketsphinx libraries are not installed')
    const key = `${mode}\0${modelDir}`
    let d = decoders.get(key)
    if (!d) {
      d = SphinxDecoder.create(n, mode, modelDir)
      decoders.set(key, d)
    }
    return { id, ok: true, text: d.decode(samples).trim() }
  } catch (err) {
    return { id, ok: false, error: (err as Error).message }
  }
}

declare const self: Worker
self.onmessage = (ev: MessageEvent<SphinxJob | SphinxAttach | SphinxRelease>) => {
  const m = ev.data
  if ('release' in m) {
    for (const d of decoders.values()) d.free()
    decoders.clear()
    // pocketsphinx frees with free(); without a trim glibc keeps the pages for the next malloc
    trimHeap()
    return
  }
  if ('attach' in m) {
    const port = m.attach
    port.onmessage = (e) => port.postMessage(decode(e.data as SphinxJob))
    return
  }
  self.postMessage(decode(m))
}
