// The figures of a run, grouped, and the tables the bench prints (Markdown, for BENCHMARKS.md).
// Pure.
import type { TrialResult } from './run.ts'
import { sumErrors, werPercent } from './score.ts'

export interface Figures {
  calls: number
  failed: number
  /** Word error rate, %, over every call with a reference; in-domain: template routes and knowledge questions. */
  wer?: number
  werInDomain?: number
  /** Template routes right, %. */
  route?: number
  /** Answerable questions whose spoken passage held the answer, %; unanswerable ones that got the no_match answer, %. */
  answered?: number
  noMatchRight?: number
  /** Numbers taken exactly, %; yes/no taken right, %; value words heard, %. */
  digits?: number
  yesNo?: number
  terms?: number
}

const pct = (ok: number, n: number) => (n ? Math.round((1000 * ok) / n) / 10 : undefined)
const share = (rs: readonly TrialResult[], ok: (r: TrialResult) => boolean) => pct(rs.filter(ok).length, rs.length)
const round1 = (v: number | undefined) => (v === undefined ? undefined : Math.round(v * 10) / 10)

export function figuresOf(rs: readonly TrialResult[]): Figures {
  const done = rs.filter((r) => !r.error)
  const scored = done.filter((r) => r.errors)
  const of = (c: string) => done.filter((r) => r.category === c)
  const kb = of('knowledge')
  return {
    calls: rs.length,
    failed: rs.length - done.length,
    wer: round1(werPercent(sumErrors(scored.map((r) => r.errors!)))),
    werInDomain: round1(werPercent(sumErrors(scored.filter((r) => r.category === 'template_route' || r.category === 'knowledge').map((r) => r.errors!)))),
    route: share(of('template_route'), (r) => Boolean(r.routeOk)),
    answered: share(kb.filter((r) => r.answered !== undefined), (r) => Boolean(r.answered)),
    noMatchRight: share(kb.filter((r) => r.answered === undefined), (r) => Boolean(r.routeOk)),
    digits: share(of('digits'), (r) => Boolean(r.valueOk)),
    yesNo: share(of('yes_no'), (r) => Boolean(r.valueOk)),
    terms: pct(done.filter((r) => r.termsShare !== undefined).reduce((s, r) => s + r.termsShare!, 0), done.filter((r) => r.termsShare !== undefined).length),
  }
}

export type Measure = keyof Omit<Figures, 'calls' | 'failed'>

export const MEASURES: { key: Measure; title: string }[] = [
  { key: 'wer', title: 'Word error rate, % (every utterance with a reference)' },
  { key: 'werInDomain', title: 'Word error rate on in-domain questions, % (template routes and knowledge questions)' },
  { key: 'route', title: 'Template routes right, % (the node that speaks next is the one the words lead to when typed)' },
  { key: 'answered', title: 'Knowledge: the spoken passage holds the answer, % of answerable questions' },
  { key: 'noMatchRight', title: 'Knowledge: unanswerable questions given the no_match answer, %' },
  { key: 'digits', title: 'Numbers taken exactly by the collect node, %' },
  { key: 'yesNo', title: 'Yes/no taken right by the collect node, %' },
  { key: 'terms', title: 'Dates, times, names and streets: value words heard, %' },
]

const cell = (v: number | undefined) => (v === undefined ? '–' : v.toFixed(1))

/**
 * One table per measure: a row per voice (and "all voices"), a column per condition, each cell
 * "tuning / held-out".
 */
export function measureTable(rs: readonly TrialResult[], key: Measure, voices: readonly string[], conditions: readonly string[]): string {
  const cols = conditions.filter((c) => rs.some((r) => r.condition === c))
  const rows = [...voices.filter((v) => rs.some((r) => r.voice === v)), 'all voices']
  const value = (voice: string, condition: string | undefined, split: string) =>
    figuresOf(rs.filter((r) => (voice === 'all voices' || r.voice === voice) && (condition === undefined || r.condition === condition) && r.split === split))[key]
  const lines = [`| voice | ${cols.join(' | ')} | all |`, `|---|${cols.map(() => '---|').join('')}---|`]
  for (const v of rows) {
    const cells = [...cols, undefined].map((c) => `${cell(value(v, c, 'tuning'))} / ${cell(value(v, c, 'heldout'))}`)
    if (cells.every((c) => c === '– / –')) continue
    lines.push(`| ${v} | ${cells.join(' | ')} |`)
  }
  return lines.join('\n')
}

export interface Cost {
  /** Appliance CPU over the STT run, ms; its call-seconds and seconds of caller speech. */
  cpuMs: number
  callSeconds: number
  speechSeconds: number
  /** Without STT: ms of CPU per call-second (the same calls, a share of them). */
  baseMsPerCallSecond?: number
  /** The decoder's share: ms per second of caller speech, and per call-second. */
  decodeMsPerSpeechSecond?: number
  decodeMsPerCallSecond?: number
}

export function costOf(stt: { cpuMs: number; results: readonly TrialResult[] }, none?: { cpuMs: number; results: readonly TrialResult[] }): Cost {
  const sum = (rs: readonly TrialResult[], k: 'callSeconds' | 'speechSeconds') => rs.reduce((s, r) => s + r[k], 0)
  const c: Cost = { cpuMs: Math.round(stt.cpuMs), callSeconds: round1(sum(stt.results, 'callSeconds'))!, speechSeconds: round1(sum(stt.results, 'speechSeconds'))! }
  const noneCall = none ? sum(none.results, 'callSeconds') : 0
  if (!none || noneCall <= 0) return c
  c.baseMsPerCallSecond = round1(none.cpuMs / noneCall)
  const decode = stt.cpuMs - c.baseMsPerCallSecond! * c.callSeconds
  c.decodeMsPerSpeechSecond = round1(decode / c.speechSeconds)
  c.decodeMsPerCallSecond = round1(decode / c.callSeconds)
  return c
}

/** Headline figures, flat, for before -> after. */
export function headline(rs: readonly TrialResult[], cost: Cost, conditions: readonly string[]): Record<string, number | undefined> {
  const out: Record<string, number | undefined> = {}
  for (const split of ['tuning', 'heldout']) {
    for (const c of [...conditions, 'all']) {
      const f = figuresOf(rs.filter((r) => r.split === split && (c === 'all' || r.condition === c)))
      for (const m of ['wer', 'werInDomain', 'route', 'answered'] as const) if (f[m] !== undefined) out[`${m} ${c} ${split}`] = f[m]
    }
  }
  out['decode ms per s of speech'] = cost.decodeMsPerSpeechSecond
  out['decode ms per call-second'] = cost.decodeMsPerCallSecond
  return out
}

export function beforeAfter(before: Record<string, number | undefined>, after: Record<string, number | undefined>): string {
  const lines = ['| figure | before | after | after / before |', '|---|---|---|---|']
  for (const k of Object.keys(after)) {
    const [b, a] = [before[k], after[k]]
    lines.push(`| ${k} | ${cell(b)} | ${cell(a)} | ${b && a !== undefined ? (a / b).toFixed(2) : '–'} |`)
  }
  return lines.join('\n')
}
