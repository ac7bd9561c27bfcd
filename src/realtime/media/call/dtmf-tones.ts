import { DTMF_DIGITS } from '../dtmf/index.ts'

const ROWS = [697, 770, 852, 941]
const COLS = [1209, 1336, 1477, 1633]
const KEYPAD = '123A456B789C*0#D'

/** One key press as in-band audio: the dual tone for `durationMs`, then 60 ms of silence. */
export function dtmfTones(digit: string, durationMs: number, sampleRate: number): Int16Array {
  const key = KEYPAD.indexOf(digit.toUpperCase())
  if (key < 0 || !DTMF_DIGITS.includes(digit.toUpperCase())) throw new RangeError(`not a DTMF digit: ${digit}`)
  const lo = ROWS[Math.floor(key / 4)]!
  const hi = COLS[key % 4]!
  const n = Math.round((sampleRate * durationMs) / 1000)
  const out = new Int16Array(n + Math.round((sampleRate * 60) / 1000))
  for (let i = 0; i < n; i++) {
    out[i] = Math.round(7000 * Math.sin((2 * Math.PI * lo * i) / sampleRate) + 7000 * Math.sin((2 * Math.PI * hi * i) / sampleRate))
  }
  return out
}
