// The time zones a campaign contact is called in: its own, its number's (by prefix), or the job's.
import { chooseZones, type CallZones } from './choose.ts'
import { numberZones } from './prefixes.ts'

export { chooseZones, type CallZones, type ZoneSource } from './choose.ts'
export { canonicalZone, isZone } from './names.ts'
export { numberZones, prefixDataZones } from './prefixes.ts'

/** The zones of a contact calling `e164`, with its own zone (if any), in a job of zone `jobZone` (if set). */
export const callZones = (e164: string, own: string | null | undefined, jobZone: string | undefined): CallZones => chooseZones(own, numberZones(e164), jobZone)
