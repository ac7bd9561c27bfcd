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

declare const self: Worker
self.onmessage = (ev: MessageEvent<SphinxJob | SphinxRelease>) => {
  if ('release' in ev.data) {
    for (const d of decoders.values()) d.free()
    decoders.clear()
    // pocketsphinx frees with free(); without a trim glibc keeps the pages for the next malloc
    trimHeap()
    return
  }
  const { id, mode, modelDir, samples } = ev.data
  try {
    const n = loadNative()
    if (!n) throw new Error('pocketsphinx libraries are not installed')
    const key = `${mode}\0${modelDir}`
    let d = decoders.get(key)
    if (!d) {
      d = SphinxDecoder.create(n, mode, modelDir)
      decoders.set(key, d)
    }
    self.postMessage({ id, ok: true, text: d.decode(samples).trim() } satisfies SphinxResult)
  } catch (err) {
    self.postMessage({ id, ok: false, error: (err as Error).message } satisfies SphinxResult)
  }
}
