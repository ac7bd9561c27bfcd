/** A run of 13-19 digits, optionally grouped by single spaces or dashes, as card numbers are written. */
const CANDIDATE = /(?<![0-9])[0-9](?:[ -]?[0-9]){12,18}(?![0-9])/g

export function luhnValid(digits: string): boolean {
  let sum = 0
  let double = false
  for (let i = digits.length - 1; i >= 0; i--) {
    let d = digits.charCodeAt(i) - 48
    if (double) {
      d *= 2
      if (d > 9) d -= 9
    }
    sum += d
    double = !double
  }
  return sum % 10 === 0
}

/** True when `text` holds something that passes for a payment card number (length and Luhn). */
export function looksLikeCardNumber(text: string): boolean {
  for (const m of text.matchAll(CANDIDATE)) {
    const digits = m[0].replace(/[ -]/g, '')
    if (digits.length >= 13 && digits.length <= 19 && !/^(\d)\1+$/.test(digits) && luhnValid(digits)) return true
  }
  return false
}

/**
 * The path of the first field (at any depth, keys included) that looks like a card number, or
 * undefined. Callers refuse the request without echoing or logging the value. Pure.
 */
export function findCardNumber(value: unknown, path = ''): string | undefined {
  if (typeof value === 'string') return looksLikeCardNumber(value) ? path || 'body' : undefined
  if (typeof value === 'number') return Number.isSafeInteger(value) || value > 1e12 ? findCardNumber(value.toFixed(0), path) : undefined
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const hit = findCardNumber(value[i], `${path}[${i}]`)
      if (hit) return hit
    }
    return undefined
  }
  if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      const sub = path ? `${path}.${k}` : k
      if (looksLikeCardNumber(k)) return sub
      const hit = findCardNumber(v, sub)
      if (hit) return hit
    }
  }
  return undefined
}
