// How many calls this node can carry within its timing goals, and how many more it can take
// now. The model is a pure function of the figures it is given, so tests inject their own.

export interface CapacityFigures {
  /** Calls this node can carry within its goals, as last measured; Infinity: no ceiling known. */
  capacity: number
  /** Calls up now. */
  callsUp: number
  /** Calls it can take now; 0 or less: refuse (no_headroom). */
  headroom: number
  /** What limits it now, for /ready and the log (e.g. 'event_loop_lag', 'cpu', 'CALLS_MAX'). */
  limitedBy?: string
}

export interface CapacityModel {
  figures(callsUp: number): CapacityFigures
}

/** No ceiling: every call is taken (the workspace limits still apply). */
export const UNLIMITED: CapacityModel = {
  figures: (callsUp) => ({ capacity: Infinity, callsUp, headroom: Infinity }),
}

/** A fixed ceiling (CALLS_MAX, or a test's): headroom is what is left of it. */
export function fixedCapacity(max: number): CapacityModel {
  return { figures: (callsUp) => ({ capacity: max, callsUp, headroom: max - callsUp, limitedBy: callsUp >= max ? 'CALLS_MAX' : undefined }) }
}
