// A trial's caller audio: the clip in the condition's band, noise mixed in at its SNR (from half
// a second before the words to half a second after), line noise under it all, cut into 20 ms
// frames, with which frames are the words (loud in the clean clip) and which RTP packets the
// condition drops. Seeded by the trial, so a rerun sends the same bytes.
import { lineNoise, VOICED_DBFS } from '../conversation/audio.ts'
import { rmsDbfs } from '../../../src/realtime/voice/audio.ts'
import type { Clips } from './cache.ts'
import { conditionOf } from './conditions.ts'
import { framesOf, lossPattern, mixAtSnr } from './mix.ts'
import type { Trial } from './plan.ts'
import { hash32 } from './voices.ts'

export interface TrialAudio {
  rate: 8000 | 16000
  frames: Int16Array[]
  loud: boolean[]
  /** Line noise frames for the slots before and after the words. */
  noise: Int16Array[]
  drop?: boolean[]
  /** Seconds of the words (the clip), what the decoding cost is divided by. */
  speechSeconds: number
}

const EDGE_S = 0.5
const RAMP_S = 0.1

export function trialAudio(clips: Clips, t: Trial): TrialAudio {
  const c = conditionOf(t.condition)
  if (!c) throw new Error(`unknown condition ${t.condition}`)
  const rate = c.codec === 'pcm16' ? 16000 : 8000
  const clean = clips.clip(t.voice, t.utterance.id, rate === 16000 ? 'wide' : 'phone')
  const seed = hash32(`${t.utterance.id}|${t.voice}|${t.condition}`)
  const edge = c.noise ? Math.round(EDGE_S * rate) : 0
  const pcm = c.noise
    ? mixAtSnr(clean, rate, { noise: clips.noise(c.noise.kind), offset: seed % clips.noise(c.noise.kind).length, snrDb: c.noise.snrDb, leadSamples: edge, tailSamples: edge, rampSamples: Math.round(RAMP_S * rate) })
    : clean
  const line = lineNoise(pcm.length, seed)
  const mixed = pcm.map((v, i) => Math.max(-32768, Math.min(32767, v + line[i]!)))
  const n = rate / 50
  const frames = framesOf(mixed, rate)
  const loud = frames.map((_, i) => {
    const from = i * n - edge
    const words = clean.subarray(Math.max(0, from), Math.max(0, from + n))
    return words.length > 0 && rmsDbfs(words) > VOICED_DBFS
  })
  const noise = framesOf(lineNoise(n * 50, seed + 1), rate)
  return { rate, frames, loud, noise, drop: c.loss ? lossPattern(4000, c.loss, seed) : undefined, speechSeconds: clean.length / rate }
}
