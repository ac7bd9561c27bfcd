// The ranges of the numeric configuration keys. loadConfig already refuses what is not a
// non-negative number; this refuses what would make a listener, a timer or a pool fail later
// (a port above 65535 killed `serve` with a TypeError after `check-config` had passed it).
// Pure: the first problem found, naming its key, or undefined.

/** Keys that are TCP/UDP ports a listener binds: 0 picks a free port. */
export const LISTEN_PORT_KEYS = ['HTTP_PORT', 'SIP_PORT', 'SIP_TLS_PORT'] as const

/** Node and Bun timers hold at most 2^31-1 ms (about 24.8 days); longer ones fire at once. */
export const MAX_TIMER_MS = 2_147_483_647

/** Keys in seconds that end up in a timer (a Retry-After is waited for, a binding refreshed). */
const TIMER_SEC_KEYS = ['SIP_RETRY_AFTER_SEC', 'SIP_REGISTER_EXPIRES_SEC']

type Numbers = Record<string, unknown>

export function numberSettingsProblem(cfg: Numbers): string | undefined {
  for (const key of LISTEN_PORT_KEYS) {
    const problem = outside(cfg, key, 0, 65_535, 'a port (0-65535; 0 picks a free one)')
    if (problem) return problem
  }
  for (const key of ['RTP_PORT_MIN', 'RTP_PORT_MAX']) {
    const problem = outside(cfg, key, 1, 65_535, 'a port (1-65535)')
    if (problem) return problem
  }
  const min = cfg.RTP_PORT_MIN as number
  const max = cfg.RTP_PORT_MAX as number
  if (min > max) return 'RTP_PORT_MIN must not exceed RTP_PORT_MAX'
  const firstEven = min % 2 === 0 ? min : min + 1
  if (firstEven + 1 > max) return `RTP_PORT_MIN-RTP_PORT_MAX (${min}-${max}) must hold an even RTP port and the odd RTCP port after it`
  for (const key of ['VAD_START_THRESHOLD', 'VAD_STOP_THRESHOLD']) {
    const problem = outside(cfg, key, 0, 1, 'a probability (0-1)', false)
    if (problem) return problem
  }
  if ((cfg.VAD_STOP_THRESHOLD as number) > (cfg.VAD_START_THRESHOLD as number)) return 'VAD_STOP_THRESHOLD must not exceed VAD_START_THRESHOLD'
  const ptime = cfg.MEDIA_PTIME_MS as number
  if (!(ptime >= 10 && ptime <= 60 && ptime % 10 === 0)) return `MEDIA_PTIME_MS must be 10, 20, 30, 40, 50 or 60, got ${ptime}`
  for (const [key, value] of Object.entries(cfg)) {
    if (typeof value !== 'number' || key.endsWith('_THRESHOLD')) continue
    if (!Number.isInteger(value)) return `${key} must be a whole number, got ${value}`
    if (key.endsWith('_MS') && value > MAX_TIMER_MS) return `${key} must be at most ${MAX_TIMER_MS} (about 24 days), got ${value}`
    if (TIMER_SEC_KEYS.includes(key) && value * 1000 > MAX_TIMER_MS) return `${key} must be at most ${Math.floor(MAX_TIMER_MS / 1000)}, got ${value}`
  }
  return undefined
}

function outside(cfg: Numbers, key: string, lo: number, hi: number, what: string, whole = true): string | undefined {
  const v = cfg[key]
  if (typeof v !== 'number') return undefined
  if (v < lo || v > hi || (whole && !Number.isInteger(v))) return `${key} must be ${what}, got ${v}`
  return undefined
}
