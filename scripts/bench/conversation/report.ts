// One run's summary (a shape at a concurrency over a transport) and the tables the bench prints.
import { AGREE_MS, type CallFigures } from './analyse.ts'
import type { Transport } from './args.ts'
import type { CpuFigures } from './cpu.ts'
import { CLOUD_DELAYS } from './script.ts'
import type { ShapeName } from './shapes.ts'

export interface Spread {
  n: number
  p50?: number
  p95?: number
  max?: number
}

/** Nearest rank, as the call record's own percentiles. */
export function spread(values: readonly (number | undefined)[]): Spread {
  const xs = values.filter((v): v is number => v !== undefined && Number.isFinite(v)).sort((a, b) => a - b)
  const at = (p: number) => xs[Math.max(0, Math.ceil((p / 100) * xs.length) - 1)]
  return { n: xs.length, p50: at(50), p95: at(95), max: xs.at(-1) }
}

export interface RunSummary {
  shape: ShapeName
  calls: number
  pinned: boolean
  completed: number
  /** Round trip of the same number of RTP streams through a bare UDP echo process. */
  floor: Spread
  gap: Spread
  bargeInStop: Spread
  /** Interruptions the agent talked through to the end of its utterance. */
  bargeInNever: number
  /** Cloud shape: the gap less the fakes' delays. */
  platformShare?: Spread
  backchannelWentOn: number
  backchannels: number
  lost: number
  outOfOrder: number
  extra: number
  partial: number
  /** Turns where the record's voiceToVoiceMs and the wire's gap were both there, those within AGREE_MS, and the worst difference (record - wire). */
  compared: number
  agree: number
  worstDiffMs?: number
  /** Warnings and errors the appliance logged during the run, by message. */
  applianceProblems: Record<string, number>
  /** Steady runs: the calls placed around the measured ones to keep the concurrency up, and those that failed. */
  load?: { calls: number; failed: number }
  transport?: Transport
  /** The appliance's CPU over the run's steady window; undefined when the calls never held (failed). */
  cpu?: CpuFigures
  /** The appliance's admission settings (admission.ts), and the calls (measured and load) it refused for load. */
  admission?: string
  refused?: number
}

export const FAKES_DELAY_MS = CLOUD_DELAYS.sttFinalMs + CLOUD_DELAYS.llmFirstTokenMs + CLOUD_DELAYS.ttsFirstAudioMs

export function summarise(shape: ShapeName, calls: number, pinned: boolean, figures: CallFigures[], floorRtts: number[], problems: Record<string, number>): RunSummary {
  const turns = figures.flatMap((f) => f.turns)
  const gaps = turns.map((t) => t.gapMs)
  const pairs = turns.filter((t) => t.gapMs !== undefined && t.recordMs !== undefined).map((t) => t.recordMs! - t.gapMs!)
  const worst = pairs.reduce<number | undefined>((w, d) => (w === undefined || Math.abs(d) > Math.abs(w) ? d : w), undefined)
  const bcs = figures.filter((f) => f.backchannelWentOn !== undefined)
  return {
    shape,
    calls,
    pinned,
    completed: figures.filter((f) => f.ok).length,
    floor: spread(floorRtts),
    gap: spread(gaps),
    bargeInStop: spread(figures.map((f) => f.bargeInStopMs)),
    bargeInNever: figures.filter((f) => f.ok && f.bargeInStopMs === undefined).length,
    platformShare: shape === 'cloud' ? spread(gaps.map((g) => (g === undefined ? undefined : g - FAKES_DELAY_MS))) : undefined,
    backchannelWentOn: bcs.filter((f) => f.backchannelWentOn).length,
    backchannels: bcs.length,
    lost: sum(figures, 'lost'),
    outOfOrder: sum(figures, 'outOfOrder'),
    extra: sum(figures, 'extra'),
    partial: sum(figures, 'partial'),
    compared: pairs.length,
    agree: pairs.filter((d) => Math.abs(d) <= AGREE_MS).length,
    worstDiffMs: worst,
    applianceProblems: problems,
  }
}

const sum = (fs: CallFigures[], key: 'lost' | 'outOfOrder' | 'extra' | 'partial') => fs.reduce((n, f) => n + f[key], 0)
const ms = (v: number | undefined) => (v === undefined ? '-' : Math.round(v).toString())
const cell = (s: Spread, keys: ('p50' | 'p95' | 'max')[]) => keys.map((k) => ms(s[k])).join(' / ')

/** The table of one shape: a row per concurrency. */
export function table(runs: RunSummary[]): string {
  const cloud = runs[0]?.shape === 'cloud'
  const head = [
    'calls', 'done', 'load calls ok', 'gap p50 / p95 / max ms', 'n', 'gap p50 / floor p50', 'barge-in stop p50 / p95 ms', 'talked through',
    ...(cloud ? [`platform share p50 / p95 ms (gap - ${FAKES_DELAY_MS})`] : []),
    'backchannel went on', 'lost', 'reordered', 'extra', 'partial', `record vs wire <= ${AGREE_MS} ms`, 'worst (record - wire) ms', 'floor p50 / p95 ms',
  ]
  const rows = runs.map((r) => [
    String(r.calls), `${r.completed}/${r.calls}`, r.load?.calls ? `${r.load.calls - r.load.failed}/${r.load.calls}` : '-', cell(r.gap, ['p50', 'p95', 'max']), String(r.gap.n),
    r.gap.p50 !== undefined && r.floor.p50 ? `x${Math.round(r.gap.p50 / r.floor.p50)}` : '-',
    cell(r.bargeInStop, ['p50', 'p95']), String(r.bargeInNever),
    ...(cloud ? [cell(r.platformShare!, ['p50', 'p95'])] : []),
    `${r.backchannelWentOn}/${r.backchannels}`, String(r.lost), String(r.outOfOrder), String(r.extra), String(r.partial),
    `${r.agree}/${r.compared}`, ms(r.worstDiffMs), `${r.floor.p50?.toFixed(2) ?? '-'} / ${r.floor.p95?.toFixed(2) ?? '-'}`,
  ])
  return render(head, rows)
}

const f1 = (v: number | undefined) => (v === undefined ? '-' : v.toFixed(1))

/** The CPU table: a row per shape, concurrency and transport, web's ratio to SIP's at the same concurrency in the same run. */
export function cpuTable(runs: RunSummary[]): string {
  const head = ['shape', 'calls', 'transport', 'window s', 'calls up', 'CPU ms per call-s', 'web / sip', 'net of idle', 'web / sip (net)', 'main thread', 'other threads', 'child processes', 'idle ms/s', 'phones ms per call-s', 'machine / rest cores', 'gap p50 / p95 ms', 'failed']
  const rows = runs.map((r) => {
    const sip = runs.find((o) => o.shape === r.shape && o.calls === r.calls && o.transport === 'sip')?.cpu
    const c = r.cpu
    const ratio = (k: 'perCallS' | 'netPerCallS') => (r.transport === 'web' && c && sip ? `x${(c[k] / sip[k]).toFixed(2)}` : '-')
    const failed = r.calls - r.completed + (r.load?.failed ?? 0)
    return [
      r.shape, String(r.calls), r.transport ?? 'sip', f1(c?.windowS), f1(c?.callsUp), f1(c?.perCallS), ratio('perCallS'), f1(c?.netPerCallS), ratio('netPerCallS'),
      f1(c?.mainPerCallS), f1(c?.otherThreadsPerCallS), f1(c?.childrenPerCallS), f1(c?.idleMsPerS), f1(c?.phonesPerCallS), c ? `${c.machineCores.toFixed(2)} / ${c.restCores.toFixed(2)}` : '-', cell(r.gap, ['p50', 'p95']), `${failed}/${r.calls + (r.load?.calls ?? 0)}`,
    ]
  })
  return render(head, rows)
}

function render(head: string[], rows: string[][]): string {
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)))
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padStart(widths[i]!)).join(' | ')} |`
  return [line(head), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...rows.map(line)].join('\n')
}
