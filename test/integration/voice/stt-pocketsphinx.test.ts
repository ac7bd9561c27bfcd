import { afterAll, describe, expect, test } from 'bun:test'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { AudioFrame } from '../../../src/realtime/voice/audio.ts'
import { drain } from '../../../src/realtime/voice/base.ts'
import { resample } from '../../../src/realtime/voice/resample.ts'
import { PocketsphinxStt, type SttEvent } from '../../../src/realtime/voice/stt/index.ts'
import { bandModel, DEBIAN_MODEL_DIR, loadNative, SphinxDecoder } from '../../../src/realtime/voice/stt/pocketsphinx-ffi.ts'
import { fliteSpeech, frames20ms, wordErrors } from '../../helpers/speech.ts'

const engines: PocketsphinxStt[] = []
afterAll(() => engines.forEach((e) => e.close()))
const engine = (mode: 'dictation' | 'digits' | 'yesno') => {
  const e = new PocketsphinxStt({ mode })
  engines.push(e)
  return e
}

/** What a caller sounds like on a G.711 line: 8 kHz. */
const phone = (a: AudioFrame): AudioFrame => ({ samples: resample(a.samples, a.sampleRate, 8000), sampleRate: 8000 })

async function transcribe(stt: PocketsphinxStt, audio: AudioFrame): Promise<SttEvent[]> {
  const stream = stt.stream()
  for (const f of frames20ms(audio)) stream.push(f)
  stream.end()
  const { events, errors } = await drain(stream)
  expect(errors).toEqual([])
  return events
}
const finalText = (events: SttEvent[]) => events.flatMap((e) => (e.type === 'final' ? [e.text] : [])).join(' ')

describe('pocketsphinx offline STT (Debian libpocketsphinx3 through bun:ffi)', () => {
  test('is found on this machine', () => expect(PocketsphinxStt.available()).toBe(true))

  test('a decoder opens no process-wide log file, which decoder threads would close under each other', () => {
    const n = loadNative()!
    const { symbols } = n.ffi.dlopen('libsphinxbase.so.3', { err_get_logfp: { args: [], returns: 'ptr' } })
    SphinxDecoder.create(n, 'yesno', DEBIAN_MODEL_DIR).free()
    expect(symbols.err_get_logfp()).toBeNull()
  })

  // what it hears is another matter: with the 16 kHz en-us model nearly every word is wrong (bench/pocketsphinx-frontend.ts)
  test("the phone front end loads, with the model's filters over the line's band though ps_init lets feat.params override the command line, and decodes 8 kHz audio", () => {
    const n = loadNative()!
    const hmm = bandModel(join(DEBIAN_MODEL_DIR, 'en-us'), { lowerf: 250, upperf: 3450 })
    expect(readFileSync(join(hmm, 'feat.params'), 'utf8')).toMatch(/^-lowerf 250\n-upperf 3450\n/)
    expect(readFileSync(join(hmm, 'feat.params'), 'utf8')).not.toContain('6800')
    const d = SphinxDecoder.create(n, 'digits', DEBIAN_MODEL_DIR, { frontEnd: 'phone', band: { lowerf: 250, upperf: 3450 } })
    try {
      const speech = fliteSpeech('five five five', 'slt')
      const pcm = resample(speech.samples, speech.sampleRate, 8000)
      d.start({ mean: new Float32Array(13), frames: 0 })
      for (let i = 0; i < pcm.length; i += 160) d.feed(pcm.subarray(i, i + 160))
      expect(d.finish()).toMatch(/^(zero|oh|one|two|three|four|five|six|seven|eight|nine)( |$)/)
    } finally {
      d.free()
    }
  })

  test('a dictation decoder takes a language model file in place of en-us and hears only its words', () => {
    const n = loadNative()!
    const dir = mkdtempSync(join(tmpdir(), 'sphinx-lm-'))
    try {
      const words = ['book', 'a', 'table', 'for', 'two', 'please']
      const lm = join(dir, 'tiny.arpa')
      const p = Math.log10(1 / (words.length + 1)).toFixed(4)
      writeFileSync(lm, `\\data\\\nngram 1=${words.length + 2}\n\n\\1-grams:\n-99 <s> 0\n${p} </s> 0\n${words.map((w) => `${p} ${w} 0`).join('\n')}\n\n\\end\\\n`)
      const d = SphinxDecoder.create(n, 'dictation', DEBIAN_MODEL_DIR, { lm })
      try {
        const speech = fliteSpeech('book a table for two please', 'slt')
        d.start({ mean: new Float32Array(13), frames: 0 })
        for (let i = 0; i < speech.samples.length; i += 320) d.feed(speech.samples.subarray(i, i + 320))
        const heard = d.finish().split(' ').filter(Boolean)
        expect(heard.length).toBeGreaterThan(0)
        expect(heard.filter((w) => !words.includes(w))).toEqual([])
      } finally {
        d.free()
      }
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  test("once it is loaded, a large block freed no longer raises glibc's mmap threshold: the next large block gets pages of its own, so a released model's memory goes back whole", () => {
    // in a process of its own: in this one the heap's free top may serve the block whatever the threshold
    const ffi = join(import.meta.dir, '../../../src/realtime/voice/stt/pocketsphinx-ffi.ts')
    const script = `
      const { loadNative } = await import(${JSON.stringify(ffi)})
      const n = loadNative()
      const libc = n.ffi.dlopen('libc.so.6', { malloc: { args: ['u64'], returns: 'ptr' }, free: { args: ['ptr'], returns: 'void' } }).symbols
      // left alone, glibc would serve blocks up to 8 MiB from its heap after this free
      libc.free(libc.malloc(8 << 20))
      const next = libc.malloc(1 << 20)
      // glibc's chunk header before the block: bit 1 of its size field is IS_MMAPPED
      console.log((n.ffi.read.u64(next, -8) & 2n) !== 0n ? 'mapped' : 'from the heap')`
    const child = Bun.spawnSync([process.execPath, '-e', script], { stdout: 'pipe', stderr: 'pipe' })
    expect(child.stderr.toString()).toBe('')
    expect(child.stdout.toString().trim()).toBe('mapped')
  })

  test('a model that cannot be loaded is reported by ready() and problem(), not only to the first caller', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sphinx-broken-'))
    try {
      mkdirSync(join(dir, 'en-us'))
      const stt = new PocketsphinxStt({ mode: 'dictation', modelDir: dir, threads: 1 })
      engines.push(stt)
      await stt.ready()
      expect(stt.problem()).toMatch(/^STT: pocketsphinx could not load its model \(.+\)$/)
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  test('dictation transcribes clear 16 kHz speech', async () => {
    const events = await transcribe(engine('dictation'), fliteSpeech('I would like to book a table for two people'))
    // the one-pass search hears "book a" as "a buffet" in this voice: at most two words of nine wrong
    expect(wordErrors('i would like to book a table for two people', finalText(events))).toBeLessThanOrEqual(2)
    expect(events.at(-1)).toMatchObject({ type: 'usage' })
  })

  test('the digits grammar reads a number spoken on 8 kHz phone audio', async () => {
    const stt = engine('digits')
    const words = (await transcribe(stt, phone(fliteSpeech('five five five, zero one nine', 'slt')))).flatMap((e) => (e.type === 'final' ? e.text.split(' ') : []))
    expect(words).toEqual(['five', 'five', 'five', 'zero', 'one', 'nine'])
  })

  const answers: [string, 'yes' | 'no'][] = [
    ['yes', 'yes'],
    ['no', 'no'],
    ['yes please', 'yes'],
    ['no thanks', 'no'],
  ]
  for (const [said, meaning] of answers) {
    test(`the yes/no grammar hears "${said}" on phone audio as a ${meaning}`, async () => {
      const text = finalText(await transcribe(engine('yesno'), phone(fliteSpeech(said, 'rms'))))
      const first = text.split(' ')[0]!
      expect(['yes', 'yeah', 'yep', 'correct', 'right', 'sure'].includes(first) ? 'yes' : 'no').toBe(meaning)
    })
  }

  test('decoders are reused across utterances and give the same answer each time', async () => {
    const stt = engine('digits')
    const audio = fliteSpeech('four two', 'slt')
    const a = finalText(await transcribe(stt, audio))
    const b = finalText(await transcribe(stt, audio))
    expect(a).toBe('four two')
    expect(b).toBe(a)
  })
})
