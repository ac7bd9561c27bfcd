// CALL_WORKERS, and whether the RTP range gives each call worker its own slice of port pairs
// (a range too small stopped the start when the workers were created). Pure: the core count is
// passed in.

export const MAX_CALL_WORKERS = 256

/** CALL_WORKERS as configured: `auto` is one per core; throws RangeError naming the key. */
export function callWorkerCount(configured: string, cores: number): number {
  if (configured.trim() === 'auto') return cores
  const n = Number(configured)
  if (configured.trim() === '' || !Number.isInteger(n) || n < 0 || n > MAX_CALL_WORKERS) {
    throw new RangeError(`CALL_WORKERS must be auto or a whole number 0..${MAX_CALL_WORKERS}, got ${configured}`)
  }
  return n
}

/** Whole even/odd RTP port pairs of RTP_PORT_MIN-RTP_PORT_MAX. */
export function rtpPairs(min: number, max: number): number {
  const first = min % 2 === 0 ? min : min + 1
  return Math.max(0, Math.floor((max - first + 1) / 2))
}

export function callWorkersProblem(cfg: { CALL_WORKERS: string; RTP_PORT_MIN: number; RTP_PORT_MAX: number }, cores: number): string | undefined {
  let workers: number
  try {
    workers = callWorkerCount(cfg.CALL_WORKERS, cores)
  } catch (err) {
    return (err as Error).message
  }
  const pairs = rtpPairs(cfg.RTP_PORT_MIN, cfg.RTP_PORT_MAX)
  if (workers > pairs) {
    return `RTP_PORT_MIN-RTP_PORT_MAX (${cfg.RTP_PORT_MIN}-${cfg.RTP_PORT_MAX}) holds ${pairs} RTP port pair${pairs === 1 ? '' : 's'}, fewer than the ${workers} call workers of CALL_WORKERS=${cfg.CALL_WORKERS} (one pair each at least): widen the range or lower CALL_WORKERS`
  }
  return undefined
}
