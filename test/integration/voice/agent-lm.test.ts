import { afterAll, describe, expect, test } from 'bun:test'
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { decodeG711, encodeG711 } from '../../../src/realtime/media/codec/g711.ts'
import { drain } from '../../../src/realtime/voice/base.ts'
import { resample } from '../../../src/realtime/voice/resample.ts'
import { PocketsphinxStt } from '../../../src/realtime/voice/stt/index.ts'
import { agentLm, type LmSource } from '../../../src/realtime/voice/stt/agent-lm/index.ts'
import { startingMean } from '../../../src/realtime/voice/stt/pocketsphinx-cmn.ts'
import { type DecoderOptions, DEBIAN_MODEL_DIR, loadNative, SphinxDecoder } from '../../../src/realtime/voice/stt/pocketsphinx-ffi.ts'
import { fliteSpeech, frames20ms } from '../../helpers/speech.ts'

/** Each test loads the general model (about 1 s alone) in two or three decoders: slow on a busy machine. */
const DECODES_MS = 120_000

const dir = mkdtempSync(join(tmpdir(), 'agent-lm-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
const build = (source: LmSource) => agentLm(source, { dir, dictionary: join(DEBIAN_MODEL_DIR, 'cmudict-en-us.dict'), generalWeight: 0.5 })

const clinic: LmSource = {
  workflow: ['book an appointment', 'opening hours'],
  prompt: 'You answer the phone for Zephyrine Dental. Be brief.',
  vocabulary: ['Zephyrine'],
  knowledge: ['We are open from nine to five on weekdays.', 'A cleaning costs sixty dollars.'],
}

/** A caller's words as a G.711 line carries them (8 kHz). */
function lineAudio(text: string): Int16Array {
  const speech = fliteSpeech(text)
  return decodeG711('ulaw', encodeG711('ulaw', resample(speech.samples, speech.sampleRate, 8000)))
}
/** Upsampled as calls decode them. */
const onTheLine = (text: string) => resample(lineAudio(text), 8000, 16000)

function heard(pcm: Int16Array, opts: DecoderOptions): string {
  const d = SphinxDecoder.create(loadNative()!, 'dictation', DEBIAN_MODEL_DIR, opts)
  try {
    d.start(startingMean('phone'))
    for (let i = 0; i < pcm.length; i += 320) d.feed(pcm.subarray(i, i + 320))
    return d.finish()
  } finally {
    d.free()
  }
}

describe("an agent's own language model", () => {
  test("a vocabulary word the general model gets wrong on a G.711 line is heard with the agent's model, the rest of the sentence still heard", async () => {
    const built = await build(clinic)
    expect(built.summary.addedWords).toContain('zephyrine')
    const pcm = onTheLine('can you tell me about zephyrine')
    expect(heard(pcm, {})).not.toContain('zephyrine')
    const text = heard(pcm, { agentLm: built.files })
    expect(text).toContain('zephyrine')
    expect(text).toContain('tell me about')
  }, DECODES_MS)

  test('a sentence of words the agent never saw is still recognised through the general model beside it', async () => {
    const built = await build(clinic)
    expect(readFileSync(built.files.arpa, 'utf8')).not.toMatch(/ weather /)
    expect(heard(onTheLine('what is the weather like today'), { agentLm: built.files })).toContain('weather')
  }, DECODES_MS)

  test("the model is rebuilt when the agent's knowledge base changes, and reused while nothing does", async () => {
    const first = await build(clinic)
    const again = await build({ ...clinic })
    expect(again.summary.hash).toBe(first.summary.hash)
    const changed = await build({ ...clinic, knowledge: [...clinic.knowledge, 'Parking is behind the pharmacy.'] })
    expect(changed.summary.hash).not.toBe(first.summary.hash)
    expect(readFileSync(changed.files.arpa, 'utf8')).toMatch(/ pharmacy /)
    expect(readFileSync(first.files.arpa, 'utf8')).not.toMatch(/ pharmacy /)
    expect(existsSync(first.files.arpa)).toBe(true)
  })

  test("a call's stream given the agent's model decodes with it in the worker, and one without it keeps the general model", async () => {
    const built = await build(clinic)
    const stt = new PocketsphinxStt({ mode: 'dictation', threads: 1 })
    try {
      const audio = { samples: lineAudio('can you tell me about zephyrine'), sampleRate: 8000 }
      const finalOf = async (languageModel?: typeof built.files) => {
        const stream = stt.stream({ languageModel })
        for (const f of frames20ms(audio)) stream.push(f)
        stream.end()
        const { events, errors } = await drain(stream)
        expect(errors).toEqual([])
        return events.flatMap((e) => (e.type === 'final' ? [e.text] : [])).join(' ')
      }
      expect(await finalOf(built.files)).toContain('zephyrine')
      expect(await finalOf()).not.toContain('zephyrine')
    } finally {
      stt.close()
    }
  }, DECODES_MS)

  test('a word neither in the dictionary nor pronounceable by letter-to-sound is left out, and the model still loads', async () => {
    const built = await build({ ...clinic, vocabulary: ["q'''x"] })
    expect(heard(onTheLine('opening hours'), { agentLm: built.files })).toContain('hours')
  }, DECODES_MS)
})
