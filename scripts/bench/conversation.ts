// Conversation timing as the caller hears it, at the wire (issue 22), and what a web call costs
// against a SIP call (issue 27). The real appliance runs as a child process (offline:
// pocketsphinx, flite, a keyword workflow; cloud-shaped: fake streaming Deepgram,
// OpenAI-compatible LLM and ElevenLabs TTS with realistic first-byte delays, in a process of
// their own); far-end callers in another process speak a script with an interruption and a
// backchannel: SIP phones over RTP (PCMU), web callers as werift peers over WebRTC (Opus,
// signalled through the HTTP API). Every timing comes from the callers' send and arrival times;
// the call records are read afterwards for their transcript and their own voiceToVoiceMs. Each
// concurrency runs over each transport in turn against the same appliance process, whose CPU
// (every thread and its child processes, from /proc) is read over each run's steady window.
//   npm run bench:conversation [-- --calls 1,20,50 --shape offline|cloud --transport sip,web --pin --lockstep --source <checkout> --out <file> --admission on,off --calls-max N]
// --pin runs the appliance (and the echo of the floor) under `taskset -c 0`, as a one-core VM;
// --lockstep starts the calls within seconds of one another instead of the steady schedule
// (conversation/schedule.ts); --source runs another tree's src/main.ts (e.g. an exported older
// commit, for before/after). BENCH_CPU_PROF=<dir> writes the appliance's CPU profile there;
// CALL_WORKERS, when set, is passed on to the appliance (its default: auto, one per core).
// --admission on,off runs each shape against an appliance that refuses what it cannot carry and
// one that takes every call (conversation/admission.ts): admitted, refused and their gaps.
import { writeFileSync } from 'node:fs'
import { cpus, loadavg, tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { machineSlowdown } from '../../test/helpers/lag-probe.ts'
import { JsonLinesChild } from './json-lines-child.ts'
import { figuresOf, type CallFigures, type CallRecord } from './conversation/analyse.ts'
import { startAppliance, type BenchAppliance } from './conversation/appliance.ts'
import { parseArgs } from './conversation/args.ts'
import { admissionEnv, admissionTable, isRefusal } from './conversation/admission.ts'
import { callSeconds, cpuFigures, sampleCpu, settle, steadyWindow } from './conversation/cpu.ts'
import { ONSET_SILENCE_MS, STOP_SILENCE_MS } from './conversation/ear.ts'
import { VOICED_DBFS } from './conversation/audio.ts'
import type { PhoneLog } from './conversation/log.ts'
import { lagSummary, sampleLag } from './conversation/lag.ts'
import { cpuTable, summarise, table, type RunSummary } from './conversation/report.ts'
import { recordsOf, runCalls } from './conversation/run.ts'
import { STEADY_ROUNDS, STEADY_SPREAD_MS } from './conversation/schedule.ts'
import { type CloudUrls, setupShape, shapeEnv, type ShapeName } from './conversation/shapes.ts'

const args = parseArgs(process.argv.slice(2))
const HERE = join(import.meta.dir, 'conversation')
const source = resolve(args.source ?? join(import.meta.dir, '../..'))
/** A call that has not finished by then is hung up and counted as failed. */
const CALL_DEADLINE_MS = 150_000
const workers: { CALL_WORKERS?: string } = process.env.CALL_WORKERS ? { CALL_WORKERS: process.env.CALL_WORKERS } : {}

const children: { kill(): void }[] = []
const appliances = new Set<BenchAppliance>()
const cleanup = async () => {
  for (const a of appliances) await a.stop().catch(() => {})
  for (const c of children) c.kill()
}
process.on('SIGINT', () => void cleanup().then(() => process.exit(130)))

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
console.log(`appliance: ${join(source, 'src/main.ts')}${args.pin ? ' under taskset -c 0' : ''}, CALL_WORKERS ${workers.CALL_WORKERS ?? `auto (${cpus().length})`}; shapes ${args.shapes.join(', ')}; transports ${args.transports.join(', ')}; calls ${args.calls.join(', ')}`)
console.log(args.lockstep ? 'lockstep: the calls start within a few seconds of one another, so every caller talks at the same moments' : `steady: each line calls ${STEADY_ROUNDS} times back to back, the lines' first calls ${STEADY_SPREAD_MS / 1000} s apart in all; the middle calls are measured, each with every other line in a call`)
console.log(`voiced = a 20 ms frame above ${VOICED_DBFS} dBFS; an agent utterance starts after >= ${ONSET_SILENCE_MS} ms of silence; it fell silent at its last voiced frame before >= ${STOP_SILENCE_MS} ms of silence lasting past the caller's interruption`)
console.log('CPU: the appliance process (every thread) and its child processes, over the window from every line\'s first call up to the first line\'s last call down, per second of call up in it')

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
    for (const admission of args.admission) {
      const a = await startAppliance(source, { ...shapeEnv(shape, cloud), ...(workers as Record<string, string>), ...admissionEnv(admission, args.callsMax) }, args.pin)
      appliances.add(a)
      const cpu = sampleCpu(a.pid)
      const phonesCpu = sampleCpu(phones.proc.pid)
      try {
        const target = await setupShape(shape, a)
        // the first call over each transport warms the appliance's code paths (JIT, workers) for the measured ones
        for (const transport of args.transports) {
          const warm = await runCalls(phones, a, target, transport, 1, runIdx++, false, CALL_DEADLINE_MS)
          console.log(`${shape}: warm-up call over ${transport} ${warm.logs[0]?.ok ? 'done' : `failed: ${warm.logs[0]?.error}`} (not reported)`)
        }
        for (const n of args.calls) {
          for (const transport of args.transports) {
            const settled = await settle(a.pid)
            if (settled.waitedMs > 5000) console.log(`  waited ${(settled.waitedMs / 1000).toFixed(0)} s for the appliance to go idle${settled.settled ? '' : ' (it did not)'}`)
            const idleFrom = cpu.mark()
            phones.send({ cmd: 'floor', echoPort, streams: n, durationMs: 3000 })
            const floor = ((await phones.next()) as { floor: number[] }).floor
            const idle = { start: idleFrom, end: cpu.mark() }
            const problemsBefore = a.problems.length
            const started = performance.now()
            const load1 = loadavg()[0]!
            const lag = sampleLag(a.url)
            const run = await runCalls(phones, a, target, transport, n, runIdx++, args.lockstep, CALL_DEADLINE_MS)
            const lagSamples = await lag.stop()
            const records = await recordsOf(a, run.logs, transport)
            const calls = run.logs.map((l) => ({ ...figuresOf(l, records.get(l.id), shape), record: records.get(l.id), steps: relativeSteps(l), hungUpBy: l.hungUpBy }))
            const problems: Record<string, number> = {}
            const firstError: Record<string, string> = {}
            for (const p of a.problems.slice(problemsBefore)) {
              problems[p.msg] = (problems[p.msg] ?? 0) + 1
              firstError[p.msg] ??= String(p.error?.message ?? p.error ?? p.err?.message ?? '').slice(0, 200)
            }
            const window = steadyWindow(run.lines, run.all)
            const cpuFig = window && cpuFigures(cpu.samples, phonesCpu.samples, window, idle, callSeconds(run.all.values(), window))
            const refused = calls.filter((c) => isRefusal(c.error)).length + run.load.errors.filter((e) => isRefusal(e)).length
            const summary = { ...summarise(shape, n, args.pin, calls, floor, problems), load: { calls: run.load.calls, failed: run.load.failed }, transport, cpu: cpuFig, admission, refused }
            results.push({ summary, calls })
            const failed = calls.filter((c) => !c.ok)
            console.log(`${shape}, ${n} call(s) over ${transport}${admission === 'default' ? '' : `, admission ${admission}`}: ${((performance.now() - started) / 1000).toFixed(0)} s, load1 ${load1.toFixed(2)} at the start${failed.length ? `; failed: ${failed.map((c) => `${c.id} ${c.error}`).join('; ')}` : ''}`)
            if (run.load.errors.length) console.log(`  load calls failed: ${run.load.errors.slice(0, 5).join('; ')}${run.load.errors.length > 5 ? `; and ${run.load.errors.length - 5} more` : ''}`)
            if (cpuFig) console.log(`  CPU ${cpuFig.perCallS} ms per call-second (${cpuFig.callsUp} calls up over ${cpuFig.windowS} s; main thread ${cpuFig.mainPerCallS}, other threads ${cpuFig.otherThreadsPerCallS}, child processes ${cpuFig.childrenPerCallS}; idle ${cpuFig.idleMsPerS} ms/s; machine ${cpuFig.machineCores} cores busy, ${cpuFig.restCores} of them neither appliance nor phones); threads: ${cpuFig.threads.slice(0, 6).map(([k, v]) => `${k} ${v} ms`).join(', ')}`)
            else console.log('  CPU: no steady window (a line\'s calls failed)')
            const stalled = run.logs.flatMap((l) => l.steps.filter((st) => st.sendLateMaxMs > PHONE_STALL_MS).map((st) => `${l.id} ${st.id} ${st.sendLateMaxMs} ms`))
            console.log(`  ${lagSummary(lagSamples)}`)
            if (stalled.length) console.log(`  the phones sent frames more than ${PHONE_STALL_MS} ms late (their process was off the CPU): ${stalled.join('; ')}`)
            if (Object.keys(problems).length) console.log(`  the appliance logged: ${Object.entries(problems).map(([m, k]) => `${k} x ${m}${firstError[m] ? ` (first: ${firstError[m]})` : ''}`).join('; ')}`)
          }
        }
      } finally {
        cpu.stop()
        phonesCpu.stop()
        await a.stop()
        appliances.delete(a)
      }
    }
  }
} finally {
  await cleanup()
}

for (const shape of args.shapes) {
  for (const transport of args.transports) {
    const runs = results.filter((r) => r.summary.shape === shape && r.summary.transport === transport).map((r) => r.summary)
    console.log(`\n${shape} over ${transport}${args.pin ? ' (appliance pinned to one core)' : ''}:`)
    console.log(table(runs))
  }
}
if (args.admission.some((m) => m !== 'default')) {
  console.log(`\nadmission (on: CALLS_MAX ${args.callsMax ?? 'none'}, CAPACITY_LAG_MS 400, CAPACITY_STT_RTF_PERCENT 80, CAPACITY_STT_BACKLOG_MS 1000; off: every call taken):`)
  console.log(admissionTable(results.map((r) => r.summary)))
}
console.log(`\nCPU per call (CALL_WORKERS ${workers.CALL_WORKERS ?? 'auto'}):`)
console.log(cpuTable(results.map((r) => r.summary)))
const out = args.out ?? join(tmpdir(), `bench-conversation-${new Date().toISOString().replace(/[:.]/g, '-')}.json`)
writeFileSync(out, JSON.stringify({ source, pinned: args.pin, slowdown, cores: cpus().length, callWorkers: workers.CALL_WORKERS ?? 'auto', runs: results.map((r) => ({ summary: r.summary, calls: r.calls.map(({ record, ...f }) => ({ ...f, endReason: (record as any)?.endReason, transcript: record?.transcript, recordTurns: record?.metrics?.turns })) })) }, null, 1))
console.log(`\nraw per-turn figures: ${out}`)
process.exit(0)
