// SVOX Pico through @echogarden/svoxpico-wasm, as the echogarden project drives it
// (src/synthesis/SvoxPicoTTS.ts there): the lingware files go into the module's virtual file
// system, a voice is made of the text-analysis and signal-generation resources, and the engine
// is fed UTF-8 text and read until it says it is idle. The package holds only the engine; the
// lingware (Apache-2.0, from the Android sources) is in test/fixtures/understanding/pico/.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'

export const PICO_LANG_DIR = process.env.PICO_LANG_DIR ?? join(import.meta.dir, '../../../test/fixtures/understanding/pico')
export const PICO_RATE = 16000
const LINGWARE: Record<string, [string, string]> = {
  'en-US': ['en-US_ta.bin', 'en-US_lh0_sg.bin'],
  'en-GB': ['en-GB_ta.bin', 'en-GB_kh0_sg.bin'],
}
const MEMORY_BYTES = 2_500_000
const OK = 0
const IDLE = 200
const BUSY = 201

let instance: Promise<any> | undefined

async function pico(): Promise<any> {
  instance ??= import('@echogarden/svoxpico-wasm').then((m: any) => m.default())
  return instance
}

/** Speech for `text` at 16 kHz, 16-bit mono. */
export async function picoSpeech(text: string, language: 'en-US' | 'en-GB'): Promise<Int16Array> {
  const m = await pico()
  const allocated: number[] = []
  const alloc = (bytes: number) => {
    const p = m._malloc(bytes)
    allocated.push(p)
    return p
  }
  const cString = (s: string) => {
    const bytes = new TextEncoder().encode(`${s}\0`)
    const p = alloc(bytes.length)
    m.HEAPU8.set(bytes, p)
    return { p, length: bytes.length }
  }
  const u32 = (p: number) => m.HEAPU32[p >> 2]
  const check = (code: number, what: string, ok = [OK]) => {
    if (!ok.includes(code)) throw new Error(`SVOX Pico: ${what} failed (${code})`)
    return code
  }
  const memory = alloc(MEMORY_BYTES)
  const systemRef = alloc(4)
  check(m._pico_initialize(memory, MEMORY_BYTES, systemRef), 'initialize')
  const system = u32(systemRef)
  const resources: number[] = []
  try {
    const voice = cString('PicoVoice')
    check(m._pico_createVoiceDefinition(system, voice.p), 'createVoiceDefinition')
    for (const file of LINGWARE[language]!) {
      m.FS.writeFile(`./${file}`, readFileSync(join(PICO_LANG_DIR, file)))
      const ref = alloc(4)
      check(m._pico_loadResource(system, cString(`./${file}`).p, ref), `loadResource ${file}`)
      resources.push(ref)
      const name = alloc(32)
      check(m._pico_getResourceName(system, u32(ref), name), 'getResourceName')
      check(m._pico_addResourceToVoiceDefinition(system, voice.p, name), 'addResourceToVoiceDefinition')
    }
    const engineRef = alloc(4)
    check(m._pico_newEngine(system, voice.p, engineRef), 'newEngine')
    const engine = u32(engineRef)
    const input = cString(text)
    const written = alloc(4)
    const out = alloc(16384)
    const outBytes = alloc(2)
    const outType = alloc(2)
    const chunks: Int16Array[] = []
    for (let offset = 0; offset < input.length; ) {
      m.HEAP32[written >> 2] = 0
      check(m._pico_putTextUtf8(engine, input.p + offset, input.length - offset, written), 'putTextUtf8')
      offset += m.HEAP32[written >> 2]
      for (;;) {
        const code = check(m._pico_getData(engine, out, 16384, outBytes, outType), 'getData', [IDLE, BUSY])
        const n = m.HEAP16[outBytes >> 1]
        if (n > 0) chunks.push(new Int16Array(m.HEAPU8.slice(out, out + n).buffer))
        if (code === IDLE) break
      }
    }
    m._pico_disposeEngine(system, engineRef)
    m._pico_releaseVoiceDefinition(system, voice.p)
    const pcm = new Int16Array(chunks.reduce((n, c) => n + c.length, 0))
    let at = 0
    for (const c of chunks) (pcm.set(c, at), (at += c.length))
    return pcm
  } finally {
    for (const ref of resources) m._pico_unloadResource(system, ref)
    m._pico_terminate(systemRef)
    for (const p of allocated) m._free(p)
  }
}
