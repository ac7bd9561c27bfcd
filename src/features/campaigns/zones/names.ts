// IANA time zone names as people write them. Pure, and free of the prefix data, so that the
// upload's worker thread can check a contact's zone without loading it.

/** Letters, digits and _ + - in /-separated parts (America/New_York, Etc/GMT+5, UTC). */
const NAME = /^[A-Za-z][A-Za-z0-9_+-]*(\/[A-Za-z0-9_+-]+)*$/

/**
 * The zone's canonical name when the platform's time zone data knows it (`america/new_york` ->
 * `America/New_York`), else undefined. Offsets (+03:00) and the host's own zone (`local`) are no names.
 */
export function canonicalZone(name: string): string | undefined {
  if (!NAME.test(name)) return undefined
  try {
    return new Intl.DateTimeFormat('en-US', { timeZone: name }).resolvedOptions().timeZone
  } catch {
    return undefined
  }
}

export const isZone = (name: string): boolean => canonicalZone(name) !== undefined
