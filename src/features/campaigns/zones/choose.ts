// Which zones a contact's calling window is read in. Pure: the number's zones are an argument.

/** contact: its own `timezone`; number: its prefix's zone(s); job: the job's `scheduling.timezone`. */
export type ZoneSource = 'contact' | 'number' | 'job'

export interface CallZones {
  /** The window must be open in every one of them at once; empty: no zone is known (never called). */
  zones: readonly string[]
  source: ZoneSource
}

/**
 * The contact's own zone; else its number's, when the number has one; else the job's zone; else
 * every zone the number may be in. A zone chosen once for a whole job is more often the caller's
 * own than the called party's, so it never overrides a number that says where it is.
 */
export function chooseZones(own: string | null | undefined, numberZones: readonly string[], jobZone: string | undefined): CallZones {
  if (own) return { zones: [own], source: 'contact' }
  if (numberZones.length === 1) return { zones: numberZones, source: 'number' }
  if (jobZone) return { zones: [jobZone], source: 'job' }
  return { zones: numberZones, source: 'number' }
}
