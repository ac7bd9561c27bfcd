import { type CountryCode, parsePhoneNumberFromString } from 'libphonenumber-js'

const STRICT = /^\+[1-9][0-9]{1,14}$/

/** The number if `raw` is a valid E.164 number as written (+ and digits only), else undefined. Pure. */
export function strictE164(raw: string): string | undefined {
  if (!STRICT.test(raw)) return undefined
  const parsed = parsePhoneNumberFromString(raw)
  return parsed?.isValid() && parsed.number === raw ? raw : undefined
}

/**
 * Lenient normalisation for numbers that arrive from the network (a SIP Request-URI user part
 * such as `14155550123` or `+1 415-555-0123`). Returns E.164 or undefined. Pure.
 */
export function normalizeE164(raw: string, defaultCountry?: CountryCode): string | undefined {
  const cleaned = raw.trim()
  const withPlus = /^[1-9][0-9]{7,14}$/.test(cleaned) ? `+${cleaned}` : cleaned
  const parsed = parsePhoneNumberFromString(withPlus, defaultCountry)
  return parsed?.isValid() ? parsed.number : undefined
}

/** "+1 415 555 0123": the default label of a number. */
export function displayE164(e164: string): string {
  return parsePhoneNumberFromString(e164)?.formatInternational() ?? e164
}
