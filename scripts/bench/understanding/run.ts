// One measurement against one appliance: the trials placed as real calls, `concurrency` at a
// time, each call's record read back and judged, and the appliance's CPU over the run.
import type { BenchAppliance } from '../conversation/appliance.ts'
import { cpuSample } from '../conversation/cpu.ts'
import { graphOf } from './agents.ts'
import { trialAudio, type TrialAudio } from './audio.ts'
import type { Clips } from './cache.ts'
import { conditionOf } from './conditions.ts'
import { judgeCall, type CallResult, type RecordLine } from './judge.ts'
import { callLine } from './line.ts'
import type { Trial } from './plan.ts'
import type { Targets } from './setup.ts'
import { pool } from './synth.ts'
import { callStream } from './stream.ts'
import type { Start, TurnLog } from './turn.ts'

export interface TrialResult extends Partial<CallResult> {
  id: string
  voice: string
  condition: string
  split: string
  category: string
  /** The call failed to be placed or had no record. */
  error?: string
  outcome?: TurnLog['outcome']
  speechSeconds: number
  callSeconds: number
  lateFrames?: number
  /** The caller's turn and the agent's audio, for barge-in analysis. */
  turn?: Pick<TurnLog, 'answeredAt' | 'firstLoudAt' | 'lastLoudAt' | 'rx'>
}

export interface RunOutput {
  results: TrialResult[]
  /** Appliance CPU (process, every thread, its child processes) over the run, ms; and the run's wall time, s. */
  cpuMs: number
  wallSeconds: number
}

let calls = 0
/** A SIP From user no other call of this process has. */
const nextFrom = () => `1555${String(++calls).padStart(7, '0')}`

const finished = (c: any) => c?.status === 'ended' && Boolean(c.metrics)

async function recordOf(a: BenchAppliance, by: { from?: string; id?: string }): Promise<{ transcript: RecordLine[] } | undefined> {
  for (let i = 0; i < 150; i++) {
    if (by.id) {
      const r = await a.api('GET', `/api/calls/${by.id}`)
      if (finished(r.body?.call)) return { transcript: r.body.transcript ?? r.body.call.transcript ?? [] }
    } else {
      const list = (await a.api('GET', '/api/calls?limit=50')).body.calls as any[]
      const hit = list.find((c) => String(c.from).replace(/^\+/, '') === by.from)
      if (finished(hit)) {
        const r = await a.api('GET', `/api/calls/${hit.id}`)
        return { transcript: r.body?.transcript ?? r.body?.call?.transcript ?? hit.transcript ?? [] }
      }
    }
    await Bun.sleep(200) // polling another process's records
  }
  return undefined
}

/** Places one trial's call and reads its record. */
export async function placeTrial(a: BenchAppliance, targets: Targets, clips: Clips, t: Trial, start: Start = 'after_greeting', audio: TrialAudio = trialAudio(clips, t)): Promise<TrialResult> {
  const c = conditionOf(t.condition)!
  const target = targets[t.utterance.agent]
  const base = { id: t.utterance.id, voice: t.voice, condition: t.condition, split: t.utterance.split, category: t.utterance.category, speechSeconds: audio.speechSeconds }
  const from = nextFrom()
  const log =
    c.transport === 'stream'
      ? await callStream({ url: a.url, key: a.adminKey, agentId: target.agentId, frames: audio.frames, loud: audio.loud, noise: audio.noise, start })
      : await callLine({ from, sipPort: a.sipPort, user: target.user, codec: c.codec as 'pcmu' | 'pcma', frames: audio.frames, loud: audio.loud, noise: audio.noise, drop: audio.drop, start })
  const callSeconds = log.answeredAt && log.endedAt ? (log.endedAt - log.answeredAt) / 1000 : 0
  const turn = { answeredAt: log.answeredAt, firstLoudAt: log.firstLoudAt, lastLoudAt: log.lastLoudAt, rx: log.rx }
  if (log.error) return { ...base, error: log.error, callSeconds, turn }
  const record = await recordOf(a, 'callId' in log && log.callId ? { id: log.callId as string } : { from })
  if (!record) return { ...base, error: 'no record', outcome: log.outcome, callSeconds, turn }
  return { ...base, ...judgeCall(t.utterance, graphOf(t.utterance.agent), record.transcript), outcome: log.outcome, callSeconds, lateFrames: log.lateFrames, turn }
}

const processMs = (pid: number) => {
  const s = cpuSample(pid)
  return s.processMs + s.childrenMs
}

export async function runTrials(a: BenchAppliance, targets: Targets, clips: Clips, trials: readonly Trial[], concurrency: number, progress?: (done: number, r: TrialResult) => void): Promise<RunOutput> {
  const results: TrialResult[] = []
  const cpuFrom = processMs(a.pid)
  const started = performance.now()
  await pool(trials, concurrency, async (t) => {
    const r = await placeTrial(a, targets, clips, t).catch((err): TrialResult => ({ id: t.utterance.id, voice: t.voice, condition: t.condition, split: t.utterance.split, category: t.utterance.category, error: String(err?.message ?? err), speechSeconds: 0, callSeconds: 0 }))
    results.push(r)
    progress?.(results.length, r)
  })
  return { results, cpuMs: processMs(a.pid) - cpuFrom, wallSeconds: (performance.now() - started) / 1000 }
}
