// Conversation timing as the caller hears it, at the wire (issue 22). The real appliance runs as a
// child process (offline: pocketsphinx, flite, a keyword workflow; cloud-shaped: fake streaming
// Deepgram, OpenAI-compatible LLM and ElevenLabs TTS with realistic first-byte delays, in a process
// of their own); far-end phones in another process call it over SIP/RTP (PCMU) and speak a script
// with an interruption and a backchannel. Every figure comes from the phones' send and arrival
// times; the call records are read afterwards for their transcript and their own voiceToVoiceMs.
//   npm run bench:conversation [-- --calls 1,20,50 --shape offline|cloud --pin --lockstep --source <checkout> --out <file>]
// --pin runs the appliance (and the echo of the floor) under `taskset -c 0`, as a one-core VM;
// --lockstep starts the calls within seconds of one another instead of the steady schedule
// (conversation/schedule.ts); --source runs another tree's src/main.ts (e.g. an exported older
// commit, for before/after). BENCH_CPU_PROF=<dir> writes the appliance's CPU profile there.
import { writeFileSync } from 'node:fs'
import { cpus, loadavg, tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { machineSlowdown } from '../../test/helpers/lag-probe.ts'
import { JsonLinesChild } from './json-lines-child.ts'
import { figuresOf, type CallFigures, type CallRecord } from './conversation/analyse.ts'
import { startAppliance, type BenchAppliance } from './conversation/appliance.ts'
import { parseArgs } from './conversation/args.ts'
import { ONSET_SILENCE_MS, STOP_SILENCE_MS } from './conversation/ear.ts'
import { VOICED_DBFS } from './conversation/audio.ts'
import type { PhoneLog } from './conversation/log.ts'
import { lagSummary, sampleLag } from './conversation/lag.ts'
import { summarise, table, type RunSummary } from './conversation/report.ts'
import { scheduleOf, STEADY_ROUNDS, STEADY_SPREAD_MS } from './conversation/schedule.ts'
import { type CloudUrls, setupShape, shapeEnv, type ShapeName } from './conversation/shapes.ts'

const args = parseArgs(process.argv.slice(2))
const HERE = join(import.meta.dir, 'conversation')
const source = resolve(args.source ?? join(import.meta.dir, '../..'))
/** A call that has not finished by then is hung up and counted as failed. */
const CALL_DEADLINE_MS = 150_000

const children: { kill(): void }[] = []
const appliances = new Set<BenchAppliance>()
const cleanup = async () => {
  for (const a of appliances) await a.stop().catch(() => {})
  for (const c of children) c.kill()
}
process.on('SIGINT', () => void cleanup().then(() => process.exit(130)))

/** The measured calls' phone logs, and how many of the other (load) calls failed. */
async function runCalls(phones: JsonLinesChild, a: BenchAppliance, user: string, n: number, runIdx: number): Promise<{ logs: PhoneLog[]; load: { calls: number; failed: number } }> {
  const { lines, measured } = scheduleOf(n, runIdx, args.lockstep)
  phones.send({ cmd: 'calls', sipPort: a.sipPort, user, lines, deadlineMs: CALL_DEADLINE_MS })
  const logs: PhoneLog[] = []
  const load = { calls: 0, failed: 0 }
  for (let msg = await phones.next(); !msg.done; msg = await phones.next()) {
    if (measured.includes(msg.call.id)) logs.push(msg.call)
    else {
      load.calls++
      if (!msg.call.ok) load.failed++
    }
  }
  return { logs, load }
}

/** The records of these calls once every one has ended and been finalised. */
async function recordsOf(a: BenchAppliance, ids: string[]): Promise<Map<string, CallRecord>> {
  const found = new Map<string, CallRecord>()
  for (let i = 0; found.size < ids.length && i < 150; i++) {
    const list = (await a.api('GET', '/api/calls?limit=100')).body.calls as any[]
    for (const c of list) {
      const id = String(c.from).replace(/^\+/, '')
      if (ids.includes(id) && c.status === 'ended' && c.metrics) found.set(id, c)
    }
    if (found.size < ids.length) await Bun.sleep(200) // polling another process's records
  }
  return found
}

async function startFakes(): Promise<CloudUrls> {
  const fakes = new JsonLinesChild(join(HERE, 'fakes.ts'))
  children.push(fakes)
  return (await fakes.next()) as CloudUrls
}

async function startEcho(): Promise<number> {
  const cmd = [process.execPath, join(HERE, 'echo.ts')]
  const echo = Bun.spawn(args.pin ? ['taskset', '-c', '0', ...cmd] : cmd, { stdin: 'pipe', stdout: 'pipe', stderr: 'inherit' })
  children.push(echo)
  const reader = echo.stdout.getReader()
  const { value } = await reader.read()
  reader.releaseLock()
  return JSON.parse(new TextDecoder().decode(value)).port
}

/** A phone frame sent this late means the phones' process, not the appliance, made a gap in the caller's audio. */
const PHONE_STALL_MS = 60
const slowdown = await machineSlowdown()
console.log(`bench:conversation: ${cpus().length} cores (${cpus()[0]?.model ?? '?'}), slowdown ${slowdown.toFixed(2)} against the development machine, load1 ${loadavg()[0]!.toFixed(2)}`)
console.log(`appliance: ${join(source, 'src/main.ts')}${args.pin ? ' under taskset -c 0' : ''}; shapes ${args.shapes.join(', ')}; calls ${args.calls.join(', ')}`)
console.log(args.lockstep ? 'lockstep: the calls start within a few seconds of one another, so every caller talks at the same moments' : `steady: each line calls ${STEADY_ROUNDS} times back to back, the lines' first calls ${STEADY_SPREAD_MS / 1000} s apart in all; the middle calls are measured, each with every other line in a call`)
console.log(`voiced = a 20 ms frame above ${VOICED_DBFS} dBFS; an agent utterance starts after >= ${ONSET_SILENCE_MS} ms of silence; it fell silent at its last voiced frame before >= ${STOP_SILENCE_MS} ms of silence lasting past the caller's interruption`)

const phones = new JsonLinesChild(join(HERE, 'phones.ts'))
children.push(phones)
await phones.next() // the caller audio is made
const echoPort = await startEcho()
const results: { summary: RunSummary; calls: (CallFigures & { record?: CallRecord })[] }[] = []
/** A phone's steps with times from the call's answer, for the raw figures. */
const relativeSteps = (l: PhoneLog) =>
  l.steps.map((s) => ({ id: s.id, trigger: s.trigger, sendLateMaxMs: s.sendLateMaxMs, firstVoicedMs: Math.round(s.firstVoicedAt - l.answeredAt), lastVoicedMs: Math.round(s.lastVoicedAt - l.answeredAt) }))
let runIdx = 0
try {
  for (const shape of args.shapes as ShapeName[]) {
    const cloud = shape === 'cloud' ? await startFakes() : undefined
    const a = await startAppliance(source, shapeEnv(shape, cloud), args.pin)
    appliances.add(a)
    try {
      const user = await setupShape(shape, a)
      for (const n of args.calls) {
        phones.send({ cmd: 'floor', echoPort, streams: n, durationMs: 3000 })
        const floor = ((await phones.next()) as { floor: number[] }).floor
        const problemsBefore = a.problems.length
        const started = performance.now()
        const lag = sampleLag(a.url)
        const { logs, load } = await runCalls(phones, a, user, n, runIdx++)
        const lagSamples = await lag.stop()
        const records = await recordsOf(a, logs.map((l) => l.id))
        const calls = logs.map((l) => ({ ...figuresOf(l, records.get(l.id), shape), record: records.get(l.id), steps: relativeSteps(l), hungUpBy: l.hungUpBy }))
        const problems: Record<string, number> = {}
        for (const p of a.problems.slice(problemsBefore)) problems[p.msg] = (problems[p.msg] ?? 0) + 1
        const summary = { ...summarise(shape, n, args.pin, calls, floor, problems), load }
        results.push({ summary, calls })
        const failed = calls.filter((c) => !c.ok)
        console.log(`${shape}, ${n} call(s): ${((performance.now() - started) / 1000).toFixed(0)} s${failed.length ? `; failed: ${failed.map((c) => `${c.id} ${c.error}`).join('; ')}` : ''}`)
        const stalled = logs.flatMap((l) => l.steps.filter((st) => st.sendLateMaxMs > PHONE_STALL_MS).map((st) => `${l.id} ${st.id} ${st.sendLateMaxMs} ms`))
        console.log(`  ${lagSummary(lagSamples)}`)
        if (stalled.length) console.log(`  the phones sent frames more than ${PHONE_STALL_MS} ms late (their process was off the CPU): ${stalled.join('; ')}`)
        if (Object.keys(problems).length) console.log(`  the appliance logged: ${Object.entries(problems).map(([m, k]) => `${k} x ${m}`).join('; ')}`)
      }
    } finally {
      await a.stop()
      appliances.delete(a)
    }
  }
} finally {
  await cleanup()
}

for (const shape of args.shapes) {
  const runs = results.filter((r) => r.summary.shape === shape).map((r) => r.summary)
  console.log(`\n${shape}${args.pin ? ' (appliance pinned to one core)' : ''}:`)
  console.log(table(runs))
}
const out = args.out ?? join(tmpdir(), `bench-conversation-${new Date().toISOString().replace(/[:.]/g, '-')}.json`)
writeFileSync(out, JSON.stringify({ source, pinned: args.pin, slowdown, cores: cpus().length, runs: results.map((r) => ({ summary: r.summary, calls: r.calls.map(({ record, ...f }) => ({ ...f, endReason: (record as any)?.endReason, transcript: record?.transcript, recordTurns: record?.metrics?.turns })) })) }, null, 1))
console.log(`\nraw per-turn figures: ${out}`)
process.exit(0)
