// `voice-agent capacity [--quick] [--write] [--max N]`: measures how many calls at once this
// machine carries within the timing goals, per kind of call, prints a table and with --write
// puts CALLS_MAX (the least of the kinds measured) into the configuration file. It stops by
// itself (a bounded search, each probe a fixed window) and sends nothing over the network.
import { availableParallelism } from 'node:os'
import { parseArgs } from 'node:util'
import { type Config, loadConfig } from '../../../platform/config/index.ts'
import { createVoiceEngines } from '../../../realtime/voice/index.ts'
import { synthesizeAll } from '../../../realtime/voice/tts/contract.ts'
import { GOALS, probeOfflineStt, probeWorkflowTts } from './probes.ts'
import { findCapacity } from './search.ts'
import { configFileOf, writeCallsMax } from './write.ts'

export { CapacityWriteError } from './write.ts'

type Out = { out(line: string): void; err(line: string): void }

export class CapacityUsageError extends Error {}

export const CAPACITY_USAGE = 'usage: voice-agent capacity [--quick] [--write] [--max N]'

/** The kinds the bench measures instead: they need far-end callers and the fake cloud servers. */
const BENCH_ONLY: [string, string][] = [
  ['cloud-stt', 'npm run bench:conversation -- --shape cloud'],
  ['web', 'npm run bench:conversation -- --transport web'],
  ['stream', 'not measured yet'],
]

export async function capacityCommand(argv: string[], env: Record<string, string | undefined>, io: Out): Promise<number> {
  let o
  try {
    o = parseArgs({ args: argv, options: { quick: { type: 'boolean' }, write: { type: 'boolean' }, max: { type: 'string' } }, strict: true }).values
  } catch (err) {
    throw new CapacityUsageError(`${(err as Error).message}; ${CAPACITY_USAGE}`)
  }
  const max = o.max === undefined ? (o.quick ? 4 : 200) : Number(o.max)
  if (!Number.isInteger(max) || max < 1 || max > 1000) throw new CapacityUsageError(`--max takes a count from 1 to 1000; ${CAPACITY_USAGE}`)
  const windowMs = o.quick ? 1500 : 15_000
  const cores = availableParallelism()
  // the offline engines, whatever the configuration's cloud keys: what this machine itself does
  const config: Config = loadConfig(env, { STT_PROVIDER: 'pocketsphinx', TTS_PROVIDER: 'flite', ENGINE_IDLE_RELEASE_MS: 0 } as Partial<Config>)
  const engines = await createVoiceEngines(config)
  try {
    io.err(`capacity: ${cores} cores; each probe ${windowMs / 1000} s, up to ${max} calls at once; goals: STT lag ${GOALS.sttLagMs} ms, reply ready ${GOALS.replyMs} ms, event-loop lag p99 ${GOALS.loopLagMs} ms`)
    const rows: { kind: string; calls?: number; note: string }[] = []
    const measure = async (kind: string, probe: (calls: number) => ReturnType<typeof probeWorkflowTts>) => {
      const found = await findCapacity(async (calls) => {
        const v = await probe(calls)
        io.err(`  ${kind} at ${calls}: ${v.holds ? 'holds' : 'fails'}, ${v.figure}`)
        return v
      }, max)
      rows.push({ kind, calls: found.calls, note: found.limitedBy })
    }
    if (engines.stt) {
      const speech = { samples: await synthesizeAll(engines.tts(16000), 'I would like to book a table for two people tomorrow evening, please.'), sampleRate: 16000 }
      await measure('offline-stt', (calls) => probeOfflineStt(engines, speech, calls, windowMs))
    } else rows.push({ kind: 'offline-stt', note: 'not measured: pocketsphinx is not installed' })
    await measure('workflow', (calls) => probeWorkflowTts(engines, calls, windowMs))
    for (const [kind, how] of BENCH_ONLY) rows.push({ kind, note: `not measured here: ${how}` })
    io.out(['kind', 'calls', 'per_core', 'limited_by'].join('\t'))
    for (const r of rows) io.out([r.kind, r.calls ?? '-', r.calls === undefined ? '-' : (r.calls / cores).toFixed(1), r.note].join('\t'))
    const measured = rows.flatMap((r) => (r.calls === undefined ? [] : [r.calls]))
    const callsMax = Math.max(1, Math.min(...measured))
    if (o.write) {
      const file = configFileOf(env)
      writeCallsMax(file, callsMax)
      io.err(`wrote CALLS_MAX=${callsMax} to ${file}`)
    } else io.err(`CALLS_MAX would be ${callsMax} (the least of the kinds measured); --write puts it into ${configFileOf(env)}`)
    return 0
  } finally {
    await engines.close()
  }
}
