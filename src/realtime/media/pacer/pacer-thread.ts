// The pacer thread: takes datagrams from a media thread's send ring and puts each on the wire at
// its instant with sendto(2) on the call's own socket. It asks for real-time priority
// (SCHED_FIFO) so that a busy machine does not make it late: an ordinary thread beside 400 calls
// on two cores woke 1-1.6 ms late at p99, a SCHED_FIFO one 0.07-0.18 ms (BENCHMARKS.md). Where
// the process may not (no CAP_SYS_NICE) it runs as an ordinary thread, which still keeps the
// calls' decoding and mixing from delaying a send.
import { dlopen, FFIType, ptr, toArrayBuffer } from 'bun:ffi'
import { monotonicOffset } from './monotonic.ts'
import { SendRing } from './ring.ts'

declare const self: Worker

const SCHED_FIFO = 1
const MSG_DONTWAIT = 0x40
/** A wait is capped so the thread notices a stop even when nothing is queued. */
const IDLE_WAIT_MS = 250

const libc = dlopen('libc.so.6', {
  sendto: { args: [FFIType.i32, FFIType.ptr, FFIType.u64, FFIType.i32, FFIType.ptr, FFIType.u32], returns: FFIType.i64 },
  sched_setscheduler: { args: [FFIType.i32, FFIType.i32, FFIType.ptr], returns: FFIType.i32 },
  __errno_location: { args: [], returns: FFIType.ptr },
}).symbols

const offset = monotonicOffset()
/** CLOCK_MONOTONIC in ms: the clock of the due instants in the ring. */
const now = () => performance.now() + offset

function run(ring: SendRing, priority: number): void {
  const realtime = priority > 0 && libc.sched_setscheduler(0, SCHED_FIFO, new Int32Array([priority])) === 0
  ring.setMode(realtime ? 'realtime' : 'thread')
  postMessage({ mode: ring.mode })
  const base = ptr(ring.bytes)
  let n = ring.head
  for (;;) {
    const tail = ring.tail
    if (n === tail) {
      if (ring.stopping) return
      ring.waitForMore(n, IDLE_WAIT_MS)
      continue
    }
    const wait = ring.dueOf(n) - now()
    if (wait > 0.02 && !ring.stopping) {
      ring.waitUntilDue(wait)
      continue
    }
    const sent = libc.sendto(ring.fdOf(n), base + ring.dataAt(n), ring.lengthOf(n), MSG_DONTWAIT, base + ring.addressAt(n), ring.addressLengthOf(n))
    const errno = Number(sent) < 0 ? readErrno() : 0
    ring.done(n, now(), errno)
    n = (n + 1) | 0
  }
}

function readErrno(): number {
  const at = libc.__errno_location()
  return at ? new Int32Array(toArrayBuffer(at, 0, 4))[0]! : -1
}

self.onmessage = (e: MessageEvent<{ buffer: SharedArrayBuffer; priority: number }>) => {
  run(new SendRing(e.data.buffer), e.data.priority)
  postMessage({ stopped: true })
}
