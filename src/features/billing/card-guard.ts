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

const numberText = (n: number) => (Number.isSafeInteger(n) || n > 1e12 ? n.toFixed(0) : undefined)

/**
 * The path of the first field (at any depth, keys included) that looks like a card number, or
 * undefined. Callers refuse the request without echoing or logging the value. Pure, and walks
 * with its own stack: a body nested thousands deep cannot overflow the call stack.
 */
export function findCardNumber(value: unknown): string | undefined {
  const stack: [unknown, string][] = [[value, '']]
  while (stack.length) {
    const [v, path] = stack.pop()!
    const text = typeof v === 'string' ? v : typeof v === 'number' ? numberText(v) : undefined
    if (text !== undefined) {
      if (looksLikeCardNumber(text)) return path || 'body'
      continue
    }
    if (!v || typeof v !== 'object') continue
    const children: [unknown, string][] = Array.isArray(v)
      ? v.map((item, i) => [item, `${path}[${i}]`])
      : Object.entries(v).map(([k, item]) => [item, path ? `${path}.${k}` : k])
    // keys are checked as they are reached; children go on the stack last-first to keep document order
    for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]!)
    if (!Array.isArray(v)) for (const [k] of Object.entries(v)) if (looksLikeCardNumber(k)) return path ? `${path}.${k}` : k
  }
  return undefined
}
