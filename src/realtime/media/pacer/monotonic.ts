// One clock for two threads. performance.now() counts from each thread's own start, so a due
// time handed to another thread is converted to CLOCK_MONOTONIC (ms), which every thread of
// the process shares: each thread measures once what to add to its performance.now().
import { dlopen, FFIType } from 'bun:ffi'

const CLOCK_MONOTONIC = 1

/** What to add to this thread's performance.now() to get CLOCK_MONOTONIC in ms. */
export function monotonicOffset(): number {
  // opened here, not on import: with MEDIA_PACER=off nothing of the pacer may need libc
  const libc = dlopen('libc.so.6', { clock_gettime: { args: [FFIType.i32, FFIType.ptr], returns: FFIType.i32 } }).symbols
  const ts = new BigInt64Array(2)
  let best = Infinity
  let offset = 0
  // the reading bracketed most tightly by performance.now() on both sides
  for (let i = 0; i < 9; i++) {
    const before = performance.now()
    libc.clock_gettime(CLOCK_MONOTONIC, ts)
    const after = performance.now()
    if (after - before < best) {
      best = after - before
      offset = Number(ts[0]!) * 1000 + Number(ts[1]!) / 1e6 - (before + after) / 2
    }
  }
  return offset
}
