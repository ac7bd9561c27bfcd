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

/** What the live model reads each time it is asked (live.ts gathers them). */
export interface LiveFigures {
  /** The event loop's delay, p99 over the last interval, ms. */
  eventLoopLagMs: number
  /** This process's CPU use over the last interval, as a share of the machine's cores (0-1). */
  cpu: number
  /** The latest media frames sent late, ms (the pacer's worst lateness over the last interval); absent: not measured. */
  sendLatenessMs?: number
  /**
   * Offline STT's real-time factor over the last interval: seconds of decoding the audio that came
   * in needs per second, all calls together, on its busiest decoder thread (1 or more: it falls
   * behind the callers); absent: no offline STT ran.
   */
  sttRealTimeFactor?: number
  /** The most caller audio one utterance has waiting for the offline decoder, ms; absent: not measured. */
  sttBacklogMs?: number
}

export interface CapacityLimits {
  /** Calls this node carries at most (CALLS_MAX, written by `voice-agent capacity`); 0: no fixed ceiling. */
  callsMax: number
  /** Above this event-loop lag no new call is taken (CAPACITY_LAG_MS). */
  lagMs: number
  /** Above this CPU share no new call is taken (CAPACITY_CPU_PERCENT / 100). */
  cpu: number
  /** Above this send lateness no new call is taken. */
  latenessMs: number
  /** Above this offline STT real-time factor no new call is taken (the decoders fall behind the callers). */
  realTimeFactor: number
  /** Above this offline STT backlog (ms) no new call is taken. */
  backlogMs: number
}

/**
 * Capacity and headroom from what is measured now: the fixed ceiling when one is set, and no
 * headroom at all while a live figure is past its goal, so the calls in progress keep theirs.
 */
export function headroomOf(callsUp: number, f: LiveFigures, l: CapacityLimits): CapacityFigures {
  const capacity = l.callsMax > 0 ? l.callsMax : Infinity
  const over: [boolean, string][] = [
    [f.eventLoopLagMs > l.lagMs, 'event_loop_lag'],
    [f.cpu > l.cpu, 'cpu'],
    [(f.sendLatenessMs ?? 0) > l.latenessMs, 'media_send_lateness'],
    [(f.sttRealTimeFactor ?? 0) > l.realTimeFactor, 'stt_real_time_factor'],
    [(f.sttBacklogMs ?? 0) > l.backlogMs, 'stt_backlog'],
  ]
  const limitedBy = over.find(([hit]) => hit)?.[1]
  // a node with no call up always takes one: its figures then describe other work, not calls
  if (limitedBy && callsUp > 0) return { capacity: Math.min(capacity, callsUp), callsUp, headroom: 0, limitedBy }
  return { capacity, callsUp, headroom: capacity - callsUp, limitedBy: callsUp >= capacity ? 'CALLS_MAX' : undefined }
}
