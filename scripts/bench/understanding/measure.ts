// One tree's measurement: an appliance from its src/main.ts with the offline defaults (Silero
// VAD, pocketsphinx, flite, no LLM), the agents set up, the trials placed; then, for the
// decoding cost, a share of the same calls on a fresh appliance with STT_PROVIDER=none; and the
// knowledge questions typed into a workflow test-run (the text baseline).
import { startAppliance, type BenchAppliance } from '../conversation/appliance.ts'
import { graphOf } from './agents.ts'
import { bargeFigure, type BargeFigure, type BargeTrial, INTO_WELCOME_MS, noiseOnlyAudio, welcomeLength } from './bargein.ts'
import type { Clips } from './cache.ts'
import type { NoiseKind } from './conditions.ts'
import { judgeCall } from './judge.ts'
import type { Trial } from './plan.ts'
import { costOf, type Cost } from './report.ts'
import { placeTrial, runTrials, type TrialResult } from './run.ts'
import { setupAgents, typedOnAppliance } from './setup.ts'
import { pool } from './synth.ts'
import { hash32 } from './voices.ts'

export const OFFLINE_ENV = { VAD_ENGINE: 'silero', STT_PROVIDER: 'pocketsphinx', LLM_PROVIDER: 'none', TTS_PROVIDER: 'flite' }

export interface Measurement {
  source: string
  results: TrialResult[]
  cost: Cost
  /** Knowledge questions typed into the clinic agent's test-run: answered, % of answerable. */
  typedAnswered?: number
  wallSeconds: number
  problems: Record<string, number>
}

const problemsOf = (a: BenchAppliance) => {
  const out: Record<string, number> = {}
  for (const p of a.problems) out[p.msg] = (out[p.msg] ?? 0) + 1
  return out
}

async function withAppliance<T>(source: string, env: Record<string, string>, body: (a: BenchAppliance) => Promise<T>): Promise<T & { problems: Record<string, number> }> {
  const a = await startAppliance(source, env, false)
  try {
    return { ...(await body(a)), problems: problemsOf(a) }
  } finally {
    await a.stop()
  }
}

async function typedAnswered(a: BenchAppliance, agentId: string, trials: readonly Trial[]): Promise<number | undefined> {
  const questions = [...new Map(trials.filter((t) => t.utterance.category === 'knowledge' && typeof t.utterance.expect.contains === 'string').map((t) => [t.utterance.id, t.utterance])).values()]
  let ok = 0
  for (const q of questions) {
    const run = await typedOnAppliance(a, agentId, q.text)
    const lines = run.responses.map((r) => ({ role: 'agent' as const, text: r.output }))
    if (judgeCall(q, graphOf('clinic'), [lines[0]!, { role: 'user', text: q.text }, ...lines.slice(1)]).answered) ok++
  }
  return questions.length ? Math.round((1000 * ok) / questions.length) / 10 : undefined
}

export async function measure(source: string, clips: Clips, trials: readonly Trial[], o: { concurrency: number; costShare: number; log: (s: string) => void }): Promise<Measurement> {
  const started = performance.now()
  const progress = (label: string, total: number) => (n: number, r: TrialResult) => {
    if (n % 10 === 0 || n === total) o.log(`  ${label}: ${n}/${total} calls (last: ${r.id} ${r.voice} ${r.condition} ${r.error ? `failed: ${r.error}` : `${r.route}, heard "${(r.heard ?? '').slice(0, 60)}"`})`)
  }
  const stt = await withAppliance(source, OFFLINE_ENV, async (a) => {
    const targets = await setupAgents(a)
    const run = await runTrials(a, targets, clips, trials, o.concurrency, progress('with STT', trials.length))
    return { run, typed: await typedAnswered(a, targets.clinic.agentId, trials) }
  })
  const every = o.costShare > 0 ? Math.max(1, Math.round(1 / o.costShare)) : 0
  const sample = every ? trials.filter((_, i) => i % every === 0) : []
  const none = sample.length
    ? await withAppliance(source, { ...OFFLINE_ENV, STT_PROVIDER: 'none' }, async (a) => ({ run: await runTrials(a, await setupAgents(a), clips, sample, o.concurrency, progress('without STT', sample.length)) }))
    : undefined
  return {
    source,
    results: stt.run.results,
    cost: costOf(stt.run, none?.run),
    typedAnswered: stt.typed,
    wallSeconds: Math.round((performance.now() - started) / 1000),
    problems: stt.problems,
  }
}

export interface BargeMeasurement {
  source: string
  figures: BargeFigure[]
  welcomeMs?: number
  results: (TrialResult & { kind: BargeTrial['kind'] })[]
}

export async function measureBargeIn(source: string, clips: Clips, trials: readonly BargeTrial[], o: { concurrency: number; log: (s: string) => void }): Promise<BargeMeasurement> {
  return withAppliance(source, OFFLINE_ENV, async (a) => {
    const targets = await setupAgents(a, ['welcome'])
    const results: (TrialResult & { kind: BargeTrial['kind'] })[] = []
    await pool(trials, o.concurrency, async (t) => {
      const seed = hash32(t.utterance.id)
      const noise = t.kind === 'noise' ? noiseOnlyAudio(clips, t.voice.replace('noise-', '') as NoiseKind, seed) : undefined
      const control = t.kind === 'control' ? { rate: 8000 as const, frames: [], loud: [], noise: noiseOnlyAudio(clips, 'pink', seed).noise, speechSeconds: 0 } : undefined
      // a backchannel or noise call listens to the welcome's end: whether it stopped early is the figure
      const r = await placeTrial(a, targets, clips, t, control ? 'after_greeting' : { intoAgentMs: INTO_WELCOME_MS, untilQuiet: t.kind !== 'stop' }, noise ?? control)
      results.push({ ...r, kind: t.kind })
      if (results.length % 10 === 0 || results.length === trials.length) o.log(`  barge-in: ${results.length}/${trials.length} calls`)
    })
    const lengths = results.filter((r) => r.kind === 'control').flatMap((r) => welcomeLength(r) ?? [])
    const welcomeMs = lengths.length ? Math.min(...lengths) : undefined
    return { source, welcomeMs, figures: results.map((r) => bargeFigure(r, welcomeMs)), results }
  })
}
