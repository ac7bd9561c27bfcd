// Barge-in at the wire (--barge-in): the caller talks over the welcome agent's long welcome
// (bench:conversation's, about 12 s), 1.5 s into it, and the agent's audio as the caller
// receives it says when it fell silent. Stops: SIPp's recording and corpus questions in every
// voice, from the caller's first loud frame to the agent's last loud frame before silence for
// good (ear.ts's fellSilentAt, as bench:conversation), and whether it held and went on first (a
// blip). False stops: backchannels in every voice and noise alone (pink, babble, street at the
// level it has at 10 dB SNR); a welcome whose audio ended (a second of silence) half a second or
// more before its natural end (a control call without a caller says where that is) stopped.
import { earOf, fellSilentAt, longestSilence } from '../conversation/ear.ts'
import { lineNoise } from '../conversation/audio.ts'
import type { Clips } from './cache.ts'
import { NOISE_KINDS } from './conditions.ts'
import type { Utterance } from './corpus.ts'
import { framesOf } from './mix.ts'
import type { Trial } from './plan.ts'
import type { TrialResult } from './run.ts'
import { hash32, HUMAN_VOICE, voiceSays } from './voices.ts'
import type { TrialAudio } from './audio.ts'

export const INTO_WELCOME_MS = 1500
/** A hold this long that the agent's audio came back from is a blip. */
const BLIP_MS = 200
/** Stopped this much before the welcome's natural end: stopped, not ended. */
const EARLY_MS = 500
/** The welcome is over at its last loud frame before this much silence (longer than its pauses and a held blip). */
const ENDED_MS = 1000
/** Noise alone at the level it has under -25 dBFS speech at 10 dB SNR. */
export const NOISE_ONLY_DBFS = -35

export type BargeKind = 'stop' | 'backchannel' | 'noise' | 'control'
export interface BargeTrial extends Trial {
  kind: BargeKind
}

const pick = (pool: readonly Utterance[], n: number, salt: string) => [...pool].sort((a, b) => hash32(`${salt}|${a.id}`) - hash32(`${salt}|${b.id}`)).slice(0, n)

/** The barge-in calls: `perVoice` questions and backchannels per voice, the recording and each noise four times, two controls. */
export function bargeTrials(corpus: readonly Utterance[], voices: readonly string[], perVoice: number, human: Utterance): BargeTrial[] {
  const welcome = (u: Utterance): Utterance => ({ ...u, agent: 'welcome' })
  const out: BargeTrial[] = []
  for (const voice of voices) {
    if (voice === HUMAN_VOICE) {
      for (let i = 0; i < 4; i++) for (const condition of ['pcmu', 'pcma']) out.push({ utterance: welcome(human), voice, condition, kind: 'stop' })
      continue
    }
    const questions = corpus.filter((u) => (u.category === 'template_route' || u.category === 'knowledge') && voiceSays(voice, u.id))
    const backchannels = corpus.filter((u) => u.category === 'backchannel' && voiceSays(voice, u.id))
    for (const u of pick(questions, perVoice, voice)) out.push({ utterance: welcome(u), voice, condition: 'pcmu', kind: 'stop' })
    for (const u of pick(backchannels, perVoice, voice)) out.push({ utterance: u, voice, condition: 'pcmu', kind: 'backchannel' })
  }
  const quiet: Utterance = { id: 'noise', text: '', category: 'backchannel', agent: 'welcome', split: 'heldout', expect: { stop: false } }
  for (const kind of NOISE_KINDS) for (let i = 0; i < 4; i++) out.push({ utterance: { ...quiet, id: `noise-${kind}-${i}` }, voice: `noise-${kind}`, condition: 'pcmu', kind: 'noise' })
  for (let i = 0; i < 2; i++) out.push({ utterance: { ...quiet, id: `control-${i}` }, voice: 'none', condition: 'pcmu', kind: 'control' })
  return out
}

/** Two seconds of a noise bed at NOISE_ONLY_DBFS, every frame loud (the caller's sound starts at once). */
export function noiseOnlyAudio(clips: Clips, kind: (typeof NOISE_KINDS)[number], seed: number): TrialAudio {
  const bed = clips.noise(kind)
  const n = 2 * 8000
  const from = seed % (bed.length - n)
  let s = 0
  for (let i = from; i < from + n; i++) s += bed[i]! * bed[i]!
  const gain = (32768 * 10 ** (NOISE_ONLY_DBFS / 20)) / Math.sqrt(s / n)
  const pcm = Int16Array.from(bed.subarray(from, from + n), (v) => Math.max(-32768, Math.min(32767, Math.round(v * gain))))
  const frames = framesOf(pcm, 8000)
  return { rate: 8000, frames, loud: frames.map(() => true), noise: framesOf(lineNoise(160 * 50, seed), 8000), speechSeconds: 2 }
}

export interface BargeFigure {
  voice: string
  kind: BargeKind
  /** First loud frame sent -> the agent's last loud frame before silence for good; undefined if it never fell silent. */
  stopMs?: number
  /** It held (went quiet >= 200 ms) and came back before stopping for good. */
  blip?: boolean
  /** Backchannel or noise: the welcome stopped before its end. */
  falseStop?: boolean
  /** Control: the welcome's length at the wire, ms. */
  welcomeMs?: number
}

/** The welcome's length at the wire in a call where the caller said nothing. */
export function welcomeLength(r: TrialResult): number | undefined {
  if (!r.turn) return undefined
  const ear = earOf(r.turn.rx)
  const onset = ear.onsetAfter(r.turn.answeredAt)
  if (onset === undefined) return undefined
  const after = ear.voiced.filter((v) => v >= onset)
  const end = after.findIndex((v, i) => (after[i + 1] ?? Number.POSITIVE_INFINITY) - v - 20 >= ENDED_MS)
  return end < 0 ? undefined : after[end]! - onset
}

export function bargeFigure(r: TrialResult & { kind: BargeKind }, welcomeMs: number | undefined): BargeFigure {
  const out: BargeFigure = { voice: r.voice, kind: r.kind }
  if (!r.turn) return out
  if (r.kind === 'control') return { ...out, welcomeMs: welcomeLength(r) }
  const ear = earOf(r.turn.rx)
  const { firstLoudAt, lastLoudAt } = r.turn
  if (!firstLoudAt) return out
  const stop = fellSilentAt(ear.voiced, firstLoudAt, lastLoudAt)
  if (stop !== undefined) out.stopMs = Math.round(Math.max(0, stop - firstLoudAt))
  out.blip = stop !== undefined && longestSilence(ear.voiced, firstLoudAt, stop) >= BLIP_MS
  const length = welcomeLength(r)
  if (r.kind !== 'stop' && welcomeMs !== undefined && length !== undefined) out.falseStop = length < welcomeMs - EARLY_MS
  return out
}

const quantile = (xs: number[], q: number) => {
  const s = [...xs].sort((a, b) => a - b)
  return s.length ? s[Math.min(s.length - 1, Math.ceil(q * s.length) - 1)]! : undefined
}

export function bargeTables(figs: readonly BargeFigure[]): { stops: string; falseStops: string } {
  const voices = [...new Set(figs.filter((f) => f.kind === 'stop').map((f) => f.voice))]
  const stops = ['| voice | calls | stopped | stop p50 ms | stop p95 ms | blips |', '|---|---|---|---|---|---|']
  for (const v of [...voices, 'all']) {
    const of = figs.filter((f) => f.kind === 'stop' && (v === 'all' || f.voice === v))
    const ms = of.flatMap((f) => (f.stopMs === undefined ? [] : [f.stopMs]))
    stops.push(`| ${v} | ${of.length} | ${ms.length} | ${quantile(ms, 0.5) ?? '–'} | ${quantile(ms, 0.95) ?? '–'} | ${of.filter((f) => f.blip).length} |`)
  }
  const groups = [...new Set(figs.filter((f) => f.kind === 'backchannel' || f.kind === 'noise').map((f) => `${f.kind}|${f.voice}`))]
  const falseStops = ['| clip | voice or noise | welcomes | stopped falsely |', '|---|---|---|---|']
  for (const g of [...groups, 'backchannel|all', 'noise|all']) {
    const [kind, voice] = g.split('|')
    const of = figs.filter((f) => f.kind === kind && (voice === 'all' || f.voice === voice) && f.falseStop !== undefined)
    falseStops.push(`| ${kind} | ${voice} | ${of.length} | ${of.filter((f) => f.falseStop).length} (${of.length ? Math.round((100 * of.filter((f) => f.falseStop).length) / of.length) : 0} %) |`)
  }
  return { stops: stops.join('\n'), falseStops: falseStops.join('\n') }
}
