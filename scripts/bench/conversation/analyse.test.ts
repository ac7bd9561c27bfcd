// The conversation bench's pure core: how it reads a phone's log and a call record.
import { describe, expect, test } from 'bun:test'
import { figuresOf, orderOf } from './analyse.ts'
import { parseArgs } from './args.ts'
import { callSeconds, cpuFigures, type CpuSample, steadyWindow } from './cpu.ts'
import { scheduleOf, STEADY_ROUNDS, STEADY_SPREAD_MS } from './schedule.ts'
import { AgentEar, fellSilentAt } from './ear.ts'
import type { PhoneLog, StepLog } from './log.ts'
import { ANSWERS, answerOf, llmReply, TURNS, transcriptOf, WELCOME, workflowGraph } from './script.ts'

/** Received packets every 20 ms from 0 to `endMs`: loud inside the `talk` intervals, digital silence elsewhere. */
function rx(talk: [number, number][], endMs: number): PhoneLog['rx'] {
  const at: number[] = []
  const db: number[] = []
  for (let t = 0; t < endMs; t += 20) {
    at.push(t)
    db.push(talk.some(([a, b]) => t >= a && t < b) ? -20 : -120)
  }
  return { at, db }
}

const step = (id: string, kind: StepLog['kind'], from: number, to: number, trigger: StepLog['trigger'] = 'after_answer'): StepLog => ({ id, kind, startAt: from, firstVoicedAt: from, lastVoicedAt: to, trigger, sendLateMaxMs: 0 })

const log = (steps: StepLog[], talk: [number, number][], endMs = 40_000): PhoneLog => ({
  id: '15550000001', ok: true, answeredAt: 0, rtpStartAt: 0, steps, rx: rx(talk, endMs), hungUpBy: 'agent', endedAt: endMs,
})

const inOrder = () => [
  { role: 'agent' as const, text: 'Hello, and thank you' },
  ...TURNS.flatMap((t, i) => [{ role: 'user' as const, text: transcriptOf(t) }, { role: 'agent' as const, text: ANSWERS[i]!.heard }]),
]

describe('the ear', () => {
  test('a pause inside an utterance is not a new utterance; a long silence is', () => {
    const ear = new AgentEar()
    for (let t = 0; t < 3000; t += 20) ear.hear(t, t >= 1000 && t < 1300 ? -90 : -20)
    for (let t = 4000; t < 5000; t += 20) ear.hear(t, -20)
    expect(ear.onsets).toEqual([0, 4000])
  })

  test('the agent fell silent at the silence that outlasts the interruption, not at a pause between its sentences', () => {
    const voiced = rx([[0, 1500], [1800, 2600]], 6000)
    const times = voiced.at.filter((_, i) => voiced.db[i]! > -40)
    // the caller cut in at 1000 and talked until 2400: the pause at 1500 was a sentence break
    expect(fellSilentAt(times, 1000, 2400)).toBe(2580)
    expect(fellSilentAt(times, 1000, 1700)).toBe(1480)
  })
})

describe('figures of a call', () => {
  test('the gap runs from the last voiced frame sent to the first voiced frame of the answer received', () => {
    const steps = [step('interrupt', 'turn', 1000, 2800, 'into_agent'), step('day', 'turn', 5000, 7000), step('backchannel', 'backchannel', 9000, 9300, 'into_agent'), step('slot', 'turn', 14_000, 16_000), step('recorded', 'turn', 19_000, 21_000)]
    const talk: [number, number][] = [[200, 1700], [3500, 4500], [7900, 13_000], [16_600, 18_000], [21_800, 23_000]]
    const records = { transcript: inOrder(), metrics: { turns: [{ voiceToVoiceMs: 690 }, { voiceToVoiceMs: 900 }, { voiceToVoiceMs: 600 }, { voiceToVoiceMs: 700 }] } }
    const f = figuresOf(log(steps, talk), records, 'cloud')
    expect(f.turns.map((t) => t.gapMs)).toEqual([700, 900, 600, 800])
    expect(f.turns.map((t) => t.recordMs)).toEqual([690, 900, 600, 700])
    expect(f.bargeInStopMs).toBe(680)
    expect(f.backchannelWentOn).toBe(true)
    expect(f).toMatchObject({ lost: 0, outOfOrder: 0, extra: 0, partial: 0 })
  })

  test('an agent that stops at a backchannel and stays silent did not go on; a turn answered only after the next one has no gap', () => {
    const steps = [step('interrupt', 'turn', 1000, 2800, 'into_agent'), step('day', 'turn', 5000, 7000), step('backchannel', 'backchannel', 9000, 9300, 'into_agent'), step('slot', 'turn', 14_000, 16_000), step('recorded', 'turn', 19_000, 21_000)]
    const talk: [number, number][] = [[200, 6000], [7900, 9200], [19_500, 20_000]]
    const f = figuresOf(log(steps, talk), undefined, 'offline')
    expect(f.backchannelWentOn).toBe(false)
    expect(f.turns[2]!.gapMs).toBeUndefined()
    // the agent talked over the whole interruption and stopped only at the end of its utterance
    expect(f.bargeInStopMs).toBe(4980)
    expect(f.lost).toBe(TURNS.length)
  })

  test('an answer that comes after the caller went on is the late answer to its own turn, placed by the record, not the answer to the next', () => {
    const steps = [step('interrupt', 'turn', 1000, 2800, 'into_agent'), step('day', 'turn', 12_800, 15_000, 'no_answer')]
    // the welcome from 200 (its line at 0.1 s), the answer to the first turn only at 16 000 (its line at 15.9 s)
    const talk: [number, number][] = [[200, 1700], [16_000, 18_000]]
    const transcript = [
      { role: 'agent' as const, text: WELCOME.slice(0, 20), timestamp: 0.1 },
      { role: 'user' as const, text: transcriptOf(TURNS[0]!), timestamp: 1.0 },
      { role: 'user' as const, text: transcriptOf(TURNS[1]!), timestamp: 12.8 },
      { role: 'agent' as const, text: ANSWERS[0]!.heard, timestamp: 15.9 },
    ]
    const f = figuresOf(log(steps, talk), { transcript, metrics: { turns: [] } }, 'cloud')
    expect(f.turns.map((t) => t.gapMs)).toEqual([13_200, undefined])
  })
})

describe('turn order from the record', () => {
  test('every turn followed by its answer is in order; a missing answer is a lost turn', () => {
    expect(orderOf(inOrder(), 'cloud')).toEqual({ lost: 0, outOfOrder: 0, extra: 0, partial: 0 })
    const withoutSecond = inOrder().filter((l) => l.text !== ANSWERS[1]!.heard && l.text !== transcriptOf(TURNS[1]!))
    expect(orderOf(withoutSecond, 'cloud').lost).toBe(1)
  })

  test('an answer to the wrong turn is out of order; a turn split in two is an extra turn', () => {
    const lines = inOrder()
    const swapped = [...lines.slice(0, 3), lines[5]!, lines[4]!, ...lines.slice(6)]
    expect(orderOf(swapped, 'cloud').outOfOrder).toBeGreaterThan(0)
    const split = [...lines.slice(0, 2), { role: 'user' as const, text: 'um' }, ...lines.slice(2)]
    expect(orderOf(split, 'offline').extra).toBe(1)
  })

  test('an interrupted answer is recognised by what was played; words the record lost make a turn partial', () => {
    expect(answerOf(ANSWERS[1]!.heard.split(' ').slice(0, 5).join(' '))).toEqual({ turn: 1, heard: true, cut: true })
    expect(answerOf(WELCOME)).toBeUndefined()
    const lines = inOrder().map((l) => (l.text === transcriptOf(TURNS[2]!) ? { ...l, text: 'um, nine thirty one, please.' } : l))
    expect(orderOf(lines, 'cloud')).toEqual({ lost: 0, outOfOrder: 0, extra: 0, partial: 1 })
  })
})

describe('the script', () => {
  test('the fake LLM answers a turn whose first word was lost', () => {
    expect(llmReply('um, nine thirty one, please.')).toBe(ANSWERS[2]!.heard)
    expect(llmReply('something else entirely')).not.toBe(ANSWERS[0]!.heard)
  })

  test("the workflow answers every turn, heard or missed, and ends after the last", () => {
    const g = workflowGraph()
    expect(g.nodes.filter((n) => n.type === 'end').map((n) => n.config.text)).toEqual([ANSWERS[3]!.heard, ANSWERS[3]!.missed])
    for (const n of g.nodes.filter((n) => n.type !== 'end')) expect(g.edges.filter((e) => e.from === n.id).length).toBe(2)
  })

  test('the command line takes counts, one shape and pinning, and refuses the rest', () => {
    expect(parseArgs(['--calls', '1,20', '--shape', 'offline', '--pin', '--lockstep'])).toMatchObject({ calls: [1, 20], shapes: ['offline'], pin: true, lockstep: true })
    expect(() => parseArgs(['--calls', '0'])).toThrow('--calls')
    expect(() => parseArgs(['--shape', 'hosted'])).toThrow('--shape')
    expect(parseArgs([]).transports).toEqual(['sip', 'web'])
    expect(parseArgs(['--transport', 'web']).transports).toEqual(['web'])
    expect(() => parseArgs(['--transport', 'sip,webrtc'])).toThrow('--transport')
  })
})

describe('the schedule of the far-end lines', () => {
  test('steady: every line places three calls back to back and only the middle ones are measured', () => {
    const s = scheduleOf(20, 3, false)
    expect(s.lines).toHaveLength(20)
    expect(s.lines.every((l) => l.ids.length === STEADY_ROUNDS)).toBe(true)
    expect(s.measured).toEqual(s.lines.map((l) => l.ids[1]!))
    expect(new Set(s.lines.flatMap((l) => l.ids)).size).toBe(60)
    // the first calls spread over most of a conversation, so the callers' turns do not coincide
    const delays = s.lines.map((l) => l.delayMs)
    expect(Math.max(...delays) - Math.min(...delays)).toBeGreaterThan(STEADY_SPREAD_MS * 0.9)
  })

  test('lockstep and a single call: one call per line, all of them measured, started within seconds', () => {
    for (const s of [scheduleOf(20, 0, true), scheduleOf(1, 0, false)]) {
      expect(s.lines.every((l) => l.ids.length === 1)).toBe(true)
      expect(s.measured).toEqual(s.lines.map((l) => l.ids[0]!))
      expect(Math.max(...s.lines.map((l) => l.delayMs))).toBeLessThan(3100)
    }
  })
})

describe('CPU per call', () => {
  const T = 1_000_000
  const call = (id: string, answeredAt: number, endedAt: number): PhoneLog => ({ id, ok: true, answeredAt: T + answeredAt, rtpStartAt: T + answeredAt, steps: [], rx: { at: [], db: [] }, hungUpBy: 'caller', endedAt: T + endedAt })
  // two lines of two calls each: line a up 0-100 s, line b 20-130 s, each with a 2 s gap between its calls (times from T)
  const logs = new Map([call('a1', 0, 50_000), call('a2', 52_000, 100_000), call('b1', 20_000, 70_000), call('b2', 72_000, 130_000)].map((l) => [l.id, l]))
  const lines = [['a1', 'a2'], ['b1', 'b2']]

  test('the steady window runs from the last line up to the first line down, and counts only the call-seconds inside it', () => {
    const w = steadyWindow(lines, logs)!
    expect(w).toEqual({ start: T + 20_000, end: T + 100_000 })
    // a: 20-50 and 52-100 (78 s); b: 20-70 and 72-100 (78 s)
    expect(callSeconds(logs.values(), w)).toBe(156)
    expect(steadyWindow([['a1'], ['missing']], logs)).toBeUndefined()
    // a line whose second call was refused (never answered) ended early: it does not cut the window short
    const refused = new Map([...logs, ['c1', call('c1', 10_000, 60_000)], ['c2', { ...call('c2', 0, 0), answeredAt: 0, endedAt: T + 60_100 }]])
    expect(steadyWindow([...lines, ['c1', 'c2']], refused)).toEqual({ start: T + 20_000, end: T + 100_000 })
  })

  test('CPU over the window, interpolated between samples, per call-second; web against idle and the phones', () => {
    // 300 ms of CPU a second while the calls are up, 10 ms a second idle before them; a third of it on the main thread
    const sample = (at: number, cpu: number): CpuSample => ({ at, processMs: cpu * 0.9, mainMs: cpu / 3, childrenMs: cpu * 0.1, threads: { main: cpu / 3, Worker: (cpu * 0.9 * 2) / 3 }, machineMs: cpu * 2 })
    const samples = [sample(-10_000, 0), sample(0, 100), ...Array.from({ length: 11 }, (_, i) => sample(20_000 + i * 10_000, 100 + 200 + i * 3000))]
    const f = cpuFigures(samples, [], { start: 25_000, end: 95_000 }, { start: -10_000, end: 0 }, 140)
    expect(f.windowS).toBe(70)
    expect(f.callsUp).toBe(2)
    expect(f.perCallS).toBe(150) // 21 s of CPU over 140 call-seconds
    expect(f.idleMsPerS).toBe(10)
    expect(f.netPerCallS).toBe(145)
    expect(f.mainPerCallS).toBe(50)
    expect(f.childrenPerCallS).toBe(15)
    expect(f.otherThreadsPerCallS).toBe(85)
    expect(f.machineCores).toBe(0.6)
    expect(f.restCores).toBe(0.3)
    expect(f.phonesPerCallS).toBeUndefined()
  })
})
