// pocketsphinx dictation: the streaming search (STREAMING_SEARCH) against pocketsphinx's default
// two-pass search, in the same run, over the same phone speech: word error rate, CPU per second
// of speech, and how long the end of an utterance takes (what the caller waits for).
// Speech: 15 sentences in four flite voices and espeak-ng, through G.711 (mu-law), with line noise.
// Usage: bun scripts/bench/pocketsphinx-search.ts
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
const SEARCHES: Record<string, readonly string[]> = { 'two-pass (pocketsphinx default, before)': [], 'streaming (STREAMING_SEARCH)': STREAMING_SEARCH }

const n = loadNative()
if (!n) throw new Error('pocketsphinx is not installed (apt install libpocketsphinx3 pocketsphinx-en-us)')

/** 300 ms of line noise, the words, as a G.711 phone line hands them to the decoder (16 kHz). */
function phoneLine(samples: Int16Array, rate: number): Int16Array {
  const narrow = resample(samples, rate, 8000)
  const line = new Int16Array(2400 + narrow.length + 1600)
  line.set(narrow, 2400)
  for (let i = 0; i < line.length; i++) line[i] = line[i]! + Math.round((Math.random() - 0.5) * 40)
  return resample(decodeG711('ulaw', encodeG711('ulaw', line)), 8000, 16000)
}

const words = (s: string) => s.toLowerCase().replace(/[^a-z ]/g, ' ').replace(/\s+/g, ' ').trim()
const corpus = SENTENCES.flatMap((said) => [
  ...['kal16', 'slt', 'awb', 'rms'].map((v) => fliteSpeech(said, v)),
  espeakSpeech(said, 'en-us+f3', 165, 16000),
].map((a) => ({ said: words(said), pcm: phoneLine(a.samples, a.sampleRate) })))
const speechSec = corpus.reduce((s, u) => s + u.pcm.length / 16000, 0)
console.log(`pocketsphinx-search: ${corpus.length} utterances, ${speechSec.toFixed(0)} s of phone speech`)

const results: { name: string; wer: number; cpu: number; endMs: number }[] = []
for (const [name, search] of Object.entries(SEARCHES)) {
  const d = SphinxDecoder.create(n, 'dictation', DEBIAN_MODEL_DIR, { search })
  let feedMs = 0
  let endMs = 0
  let errors = 0
  let total = 0
  for (const u of corpus) {
    d.start({ mean: new Float32Array(13), frames: 0 })
    let t = performance.now()
    for (let i = 0; i < u.pcm.length; i += 320) d.feed(u.pcm.subarray(i, i + 320))
    feedMs += performance.now() - t
    t = performance.now()
    const heard = d.finish()
    endMs += performance.now() - t
    errors += wordErrors(u.said, heard)
    total += u.said.split(' ').length
  }
  d.free()
  results.push({ name, wer: errors / total, cpu: (feedMs + endMs) / 1000 / speechSec, endMs: endMs / corpus.length })
}
for (const r of results) console.log(`${r.name.padEnd(42)} word errors ${(100 * r.wer).toFixed(1)}%  CPU ${(100 * r.cpu).toFixed(1)}% of a core per second of speech  end of utterance ${r.endMs.toFixed(0)} ms`)
const [before, after] = results as [(typeof results)[0], (typeof results)[0]]
console.log(`streaming / two-pass: CPU x${(after.cpu / before.cpu).toFixed(2)}, end of utterance x${(after.endMs / before.endMs).toFixed(2)}, word errors ${(100 * (after.wer - before.wer)).toFixed(1)} points`)
