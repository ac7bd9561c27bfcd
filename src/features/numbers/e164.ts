import { type CountryCode, isSupportedCountry, parsePhoneNumberFromString } from 'libphonenumber-js'

export { strictE164 } from '../../platform/net/call-target.ts'

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

/** Digits, one leading +, and the separators people write: spaces, dashes, dots, parentheses. */
const WRITTEN = /^\+?[0-9 \u00a0.()-]+$/

/** The country of an ISO 3166 alpha-2 code (any case) that numbering plans know, else undefined. Pure. */
export function countryCode(raw: string): CountryCode | undefined {
  const upper = raw.trim().toUpperCase()
  return /^[A-Z]{2}$/.test(upper) && isSupportedCountry(upper) ? (upper as CountryCode) : undefined
}

/**
 * A contact's number as people write it ("+1 (415) 555-0123", "415.555.0123" with
 * defaultCountry US, "030 1234567" with DE) in E.164, or why not. Letters, extensions and
 * national formats without a defaultCountry are refused. Pure.
 */
export function contactE164(raw: string, defaultCountry?: CountryCode): { e164: string } | { error: string } {
  const text = raw.trim()
  if (!text) return { error: 'is empty: a phone number is required' }
  if (!WRITTEN.test(text) || !/[0-9]/.test(text)) return { error: 'may hold only digits, a leading +, spaces, dashes, dots and parentheses' }
  const international = text.startsWith('+')
  if (!international && !defaultCountry) {
    return { error: 'has no +country code: write it as +14155550123, or give the job a defaultCountry for national numbers' }
  }
  const parsed = parsePhoneNumberFromString(text, international ? undefined : defaultCountry)
  if (parsed?.isValid()) return { e164: parsed.number }
  return { error: international ? 'is not a valid phone number' : `is not a valid phone number of ${defaultCountry} (defaultCountry)` }
}
