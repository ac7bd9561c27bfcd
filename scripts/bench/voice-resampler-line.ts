// The resampler on the recognisers' side: the same phone speech made with each resampler (speech
// down to 8 kHz, G.711, line noise) and brought back up to pocketsphinx's 16 kHz with each, in the
// same run: word error rate per pair. The FIR (media/codec/resample.ts) is the baseline; Speex q5
// is the media path's. The noise is seeded, so only the resamplers differ between rows.
// Speech: 15 sentences in four flite voices and espeak-ng.
//   bun scripts/bench/voice-resampler-line.ts
import type { ResamplerEngine } from '../../src/realtime/media/codec/index.ts'
import { decodeG711, encodeG711 } from '../../src/realtime/media/codec/g711.ts'
import { resample } from '../../src/realtime/voice/resample.ts'
import { DEBIAN_MODEL_DIR, loadNative, SphinxDecoder, STREAMING_SEARCH } from '../../src/realtime/voice/stt/pocketsphinx-ffi.ts'
import { espeakSpeech, fliteSpeech, wordErrors } from '../../test/helpers/speech.ts'

const SENTENCES = [
  'I would like to book a table for two people',
  'Sorry, I want to book a visit',
  'Tuesday, in the morning, if possible',
  'The nine thirty one, please',
  'No, that is all, thank you',
  'I would like to move my appointment to Monday',
  'Can you tell me your opening hours please',
  'I need to cancel my appointment for tomorrow',
  'Yes, that works for me',
  'Could you take a message for doctor Chen',
  'What time do you close on Friday',
  'My name is John Smith and my number is five five five one two three four',
  'I have a toothache and it really hurts',
  'Is there anything available next week',
  'Please call me back this afternoon',
]

const n = loadNative()
if (!n) throw new Error('pocketsphinx is not installed (apt install libpocketsphinx3 pocketsphinx-en-us)')

/** A small seeded generator (mulberry32), so every row hears the same line noise. */
function noise(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

function phoneLine(samples: Int16Array, rate: number, down: ResamplerEngine, seed: number): Int16Array {
  const narrow = resample(samples, rate, 8000, down)
  const line = new Int16Array(2400 + narrow.length + 1600)
  line.set(narrow, 2400)
  const r = noise(seed)
  for (let i = 0; i < line.length; i++) line[i] = line[i]! + Math.round((r() - 0.5) * 40)
  return decodeG711('ulaw', encodeG711('ulaw', line))
}

const words = (s: string) => s.toLowerCase().replace(/[^a-z ]/g, ' ').replace(/\s+/g, ' ').trim()
const speech = SENTENCES.flatMap((said) => [...['kal16', 'slt', 'awb', 'rms'].map((v) => fliteSpeech(said, v)), espeakSpeech(said, 'en-us+f3', 165, 16000)].map((a) => ({ said: words(said), a })))
const engines: ResamplerEngine[] = ['polyphase', 'speex']
console.log(`voice-resampler-line: ${speech.length} utterances`)
const rows: { down: ResamplerEngine; up: ResamplerEngine; wer: number }[] = []
for (const down of engines) {
  const lines = speech.map((s, i) => ({ said: s.said, line: phoneLine(s.a.samples, s.a.sampleRate, down, i + 1) }))
  for (const up of engines) {
    const d = SphinxDecoder.create(n, 'dictation', DEBIAN_MODEL_DIR, { search: STREAMING_SEARCH })
    let errors = 0
    let total = 0
    for (const u of lines) {
      const pcm = resample(u.line, 8000, 16000, up)
      d.start({ mean: new Float32Array(13), frames: 0 })
      for (let i = 0; i < pcm.length; i += 320) d.feed(pcm.subarray(i, i + 320))
      errors += wordErrors(u.said, d.finish())
      total += u.said.split(' ').length
    }
    d.free()
    rows.push({ down, up, wer: errors / total })
    console.log(`speech down by ${down.padEnd(9)} line up by ${up.padEnd(9)} word errors ${(100 * (errors / total)).toFixed(1)}%`)
  }
}
const base = rows[0]!
for (const r of rows.slice(1)) console.log(`${r.down} down / ${r.up} up against FIR both ways: ${(100 * (r.wer - base.wer)).toFixed(1)} points of word errors`)
