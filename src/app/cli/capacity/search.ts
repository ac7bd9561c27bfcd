// The most calls at once a probe says still hold their timing goals: doubling from one until a
// count fails (or the most allowed), then halving the gap. Pure: the probe is given.

/** What one probe at `calls` found: whether the goals held, and what it measured against which goal. */
export interface Verdict {
  holds: boolean
  /** e.g. "stt lag 640 ms (goal 500 ms)". */
  figure: string
}

export interface Found {
  /** The most calls that held (0: not even one). */
  calls: number
  /** The verdict of the count that failed first above it, or of the last that held when none failed. */
  limitedBy: string
  /** Each count probed, in order. */
  probed: { calls: number; verdict: Verdict }[]
}

export async function findCapacity(probe: (calls: number) => Promise<Verdict>, max: number): Promise<Found> {
  const probed: Found['probed'] = []
  const at = async (calls: number) => {
    const verdict = await probe(calls)
    probed.push({ calls, verdict })
    return verdict
  }
  let good = 0
  let goodVerdict: Verdict | undefined
  let bad: number | undefined
  let badVerdict: Verdict | undefined
  for (let n = 1; ; n = Math.min(max, n * 2)) {
    const v = await at(n)
    if (!v.holds) {
      bad = n
      badVerdict = v
      break
    }
    good = n
    goodVerdict = v
    if (n >= max) break
  }
  while (bad !== undefined && bad - good > 1) {
    const mid = Math.floor((good + bad) / 2)
    const v = await at(mid)
    if (v.holds) [good, goodVerdict] = [mid, v]
    else [bad, badVerdict] = [mid, v]
  }
  const limitedBy = badVerdict ? `${bad} calls: ${badVerdict.figure}` : `held at the most probed (${max}): ${goodVerdict!.figure}`
  return { calls: good, limitedBy, probed }
}
