// The bench with admission on and off (issue 44): the same calls against an appliance that refuses
// what it cannot carry, and one that takes every call; a table of admitted, refused and the
// admitted calls' gap p95 beside each other.
import type { RunSummary } from './report.ts'

/** `default`: the appliance's own settings; `off`: every call is taken; `on`: the live model with the STT figures too. */
export type AdmissionMode = 'default' | 'on' | 'off'
export const ADMISSION_MODES: AdmissionMode[] = ['default', 'on', 'off']

export function admissionEnv(mode: AdmissionMode, callsMax: number | undefined): Record<string, string> {
  if (mode === 'off') return { CALLS_MAX: '0', CAPACITY_LAG_MS: '0', CAPACITY_CPU_PERCENT: '0', CAPACITY_LATENESS_MS: '0', CAPACITY_STT_RTF_PERCENT: '0', CAPACITY_STT_BACKLOG_MS: '0' }
  if (mode === 'on') return { CALLS_MAX: String(callsMax ?? 0), CAPACITY_LAG_MS: '400', CAPACITY_STT_RTF_PERCENT: '80', CAPACITY_STT_BACKLOG_MS: '1000' }
  return {}
}

/** A call the appliance refused for load: SIP 503 to the INVITE, or 503 to the web call's POST. */
export function isRefusal(error: string | undefined): boolean {
  return !!error && (/INVITE answered SIP\/2\.0 503/.test(error) || /POST web-calls answered 503/.test(error))
}

/** A row per shape, concurrency, transport and admission mode. */
export function admissionTable(runs: RunSummary[]): string {
  const head = ['shape', 'calls', 'transport', 'admission', 'placed', 'admitted', 'refused', 'failed otherwise', 'gap p50 / p95 ms (admitted)']
  const rows = runs.map((r) => {
    const placed = r.calls + (r.load?.calls ?? 0)
    const refused = r.refused ?? 0
    const failed = r.calls - r.completed + (r.load?.failed ?? 0) - refused
    const ms = (v: number | undefined) => (v === undefined ? '-' : String(Math.round(v)))
    return [r.shape, String(r.calls), r.transport ?? 'sip', r.admission ?? 'default', String(placed), String(placed - refused), String(refused), String(failed), `${ms(r.gap.p50)} / ${ms(r.gap.p95)}`]
  })
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)))
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padStart(widths[i]!)).join(' | ')} |`
  return [line(head), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...rows.map(line)].join('\n')
}
