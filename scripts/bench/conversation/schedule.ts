// When each far-end phone line calls. Steady (the default): every line places three calls back
// to back, the lines' first calls spread over most of one conversation, so the callers' turns
// fall at independent moments, as on real lines, and only the middle calls are measured: while
// each of them runs, every other line is in a call too. Lockstep: one call per line, all started
// within a few seconds, so every caller talks at the same moments (the worst case for the STT).

/** About one conversation's length less its set-up: a steady line's first call starts within it. */
export const STEADY_SPREAD_MS = 25_000
export const STEADY_ROUNDS = 3

export interface Line {
  ids: string[]
  delayMs: number
}

export interface Schedule {
  lines: Line[]
  /** The calls whose figures are reported. */
  measured: string[]
}

/** Off the 20 ms grid of one another, so the lines' packets do not all fall in the same tick. */
const offGrid = (i: number) => (i * 7.3) % 20

const idOf = (run: number, round: number, line: number) => `1555${String(run).padStart(3, '0')}${round}${String(line).padStart(3, '0')}`

export function scheduleOf(n: number, run: number, lockstep: boolean): Schedule {
  if (n <= 1 || lockstep) {
    const lines = Array.from({ length: n }, (_, i) => ({ ids: [idOf(run, 0, i)], delayMs: n <= 1 ? 0 : i * Math.min(150, 8000 / n) + offGrid(i) }))
    return { lines, measured: lines.map((l) => l.ids[0]!) }
  }
  const lines = Array.from({ length: n }, (_, i) => ({
    ids: Array.from({ length: STEADY_ROUNDS }, (_, round) => idOf(run, round, i)),
    delayMs: (i * STEADY_SPREAD_MS) / n + offGrid(i),
  }))
  return { lines, measured: lines.map((l) => l.ids[1]!) }
}
