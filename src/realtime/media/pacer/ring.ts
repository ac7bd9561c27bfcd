// The queue between a media thread and its pacer thread: one producer, one consumer, fixed
// slots in a SharedArrayBuffer. A slot holds one datagram ready for the wire: the socket's
// descriptor, the destination as a sockaddr, the bytes, and the instant it is due. The consumer
// writes back when it went out, and the producer reads that before it reuses the slot, so the
// lateness of every packet is known on the thread that owns the call. Counters are int32 and
// wrap: only their differences are used, and the slot count divides 2^32.

export const SLOT_BYTES = 1536
/** Header of a slot: due (f64), sent (f64), fd, length, address length, error, then the address. */
const HEADER = 64
const ADDRESS_AT = 32
export const MAX_ADDRESS = 28
export const MAX_DATAGRAM = SLOT_BYTES - HEADER
const TAIL = 0
const HEAD = 1
const STOP = 2
const MODE = 3
/** Set while the consumer sleeps on an empty ring: only then does a push need to wake it. */
const IDLE = 4
const CONTROL_BYTES = 64

/** How the consumer ended up running: real-time priority, or an ordinary thread. */
export type PacerMode = 'starting' | 'realtime' | 'thread'
const MODES: PacerMode[] = ['starting', 'realtime', 'thread']

export class SendRing {
  readonly control: Int32Array
  readonly slots: number
  readonly bytes: Uint8Array
  readonly f64: Float64Array
  readonly i32: Int32Array

  constructor(readonly buffer: SharedArrayBuffer) {
    this.slots = (buffer.byteLength - CONTROL_BYTES) / SLOT_BYTES
    if (!Number.isInteger(this.slots) || this.slots < 1 || (this.slots & (this.slots - 1)) !== 0) throw new RangeError('a send ring holds a power of two slots')
    this.control = new Int32Array(buffer, 0, CONTROL_BYTES / 4)
    this.bytes = new Uint8Array(buffer, CONTROL_BYTES)
    this.f64 = new Float64Array(buffer, CONTROL_BYTES)
    this.i32 = new Int32Array(buffer, CONTROL_BYTES)
  }

  static create(slots: number): SendRing {
    return new SendRing(new SharedArrayBuffer(CONTROL_BYTES + slots * SLOT_BYTES))
  }

  get tail(): number {
    return Atomics.load(this.control, TAIL)
  }
  get head(): number {
    return Atomics.load(this.control, HEAD)
  }
  /** Datagrams queued and not yet taken by the consumer. */
  get pending(): number {
    return (this.tail - this.head) | 0
  }
  get stopping(): boolean {
    return Atomics.load(this.control, STOP) !== 0
  }
  get mode(): PacerMode {
    return MODES[Atomics.load(this.control, MODE)] ?? 'starting'
  }
  setMode(mode: PacerMode): void {
    Atomics.store(this.control, MODE, MODES.indexOf(mode))
  }

  /** Byte offset of counter `n`'s slot within `bytes`. */
  at(n: number): number {
    return (n & (this.slots - 1)) * SLOT_BYTES
  }

  // ---- producer ----

  /** Queues a datagram; false when the ring is full or the datagram does not fit a slot. */
  push(fd: number, address: Uint8Array, data: Uint8Array, dueMs: number): boolean {
    const tail = this.tail
    if (((tail - this.head) | 0) >= this.slots || data.length > MAX_DATAGRAM || address.length > MAX_ADDRESS) return false
    const at = this.at(tail)
    this.f64[at >> 3] = dueMs
    this.f64[(at >> 3) + 1] = 0
    const w = (at >> 2) + 4
    this.i32[w] = fd
    this.i32[w + 1] = data.length
    this.i32[w + 2] = address.length
    this.i32[w + 3] = 0
    this.bytes.set(address, at + ADDRESS_AT)
    this.bytes.set(data, at + HEADER)
    Atomics.store(this.control, TAIL, (tail + 1) | 0)
    // a consumer with work queued sleeps until its head is due, and the queue is in due order
    if (Atomics.load(this.control, IDLE) !== 0) Atomics.notify(this.control, TAIL)
    return true
  }

  /** Asks the consumer to finish; it sends what is queued first. */
  stop(): void {
    Atomics.store(this.control, STOP, 1)
    Atomics.notify(this.control, TAIL)
    Atomics.notify(this.control, IDLE + 1)
  }

  /** When slot `n` went out (ms, the clock of `dueMs`), 0 before, and the send's errno (0 when it went). */
  sentAt(n: number): number {
    return this.f64[(this.at(n) >> 3) + 1]!
  }
  errorOf(n: number): number {
    return this.i32[(this.at(n) >> 2) + 7]!
  }
  dueOf(n: number): number {
    return this.f64[this.at(n) >> 3]!
  }

  // ---- consumer ----

  fdOf(n: number): number {
    return this.i32[(this.at(n) >> 2) + 4]!
  }
  lengthOf(n: number): number {
    return this.i32[(this.at(n) >> 2) + 5]!
  }
  addressLengthOf(n: number): number {
    return this.i32[(this.at(n) >> 2) + 6]!
  }
  addressAt(n: number): number {
    return this.at(n) + ADDRESS_AT
  }
  dataAt(n: number): number {
    return this.at(n) + HEADER
  }

  /** Records how slot `n` went and hands it back to the producer. */
  done(n: number, sentMs: number, errno: number): void {
    this.f64[(this.at(n) >> 3) + 1] = sentMs
    this.i32[(this.at(n) >> 2) + 7] = errno
    Atomics.store(this.control, HEAD, (n + 1) | 0)
  }

  /** Sleeps until the producer queues past counter `n` (the ring was empty there) or `ms` pass. */
  waitForMore(n: number, ms: number): void {
    Atomics.store(this.control, IDLE, 1)
    // either the producer's push is seen here, or the producer sees IDLE and wakes the wait
    if (this.tail === n) Atomics.wait(this.control, TAIL, n, ms)
    Atomics.store(this.control, IDLE, 0)
  }

  /** Sleeps until `ms` pass (the head is not due yet; anything pushed meanwhile is due later). */
  waitUntilDue(ms: number): void {
    Atomics.wait(this.control, IDLE + 1, 0, ms)
  }
}
