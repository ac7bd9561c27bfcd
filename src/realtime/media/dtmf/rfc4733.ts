// RFC 4733 telephone-event payloads (DTMF digits 0-9 * # A-D), a receiver that turns packets
// into exactly one event per key press, and a sender that produces the packets of one press.

export const DTMF_DIGITS = '0123456789*#ABCD'

export interface TelephoneEvent {
  event: number
  end: boolean
  volume: number
  /** Duration so far, in RTP timestamp units. */
  duration: number
}

export interface DtmfEvent {
  digit: string
  durationMs: number
  source: 'rfc4733' | 'inband' | 'sip-info'
}

export function parseTelephoneEvent(payload: Uint8Array): TelephoneEvent | null {
  if (payload.length < 4) return null
  return {
    event: payload[0]!,
    end: (payload[1]! & 0x80) !== 0,
    volume: payload[1]! & 0x3f,
    duration: (payload[2]! << 8) | payload[3]!,
  }
}

export function serializeTelephoneEvent(e: TelephoneEvent): Uint8Array {
  return Uint8Array.of(e.event, (e.end ? 0x80 : 0) | (e.volume & 0x3f), (e.duration >> 8) & 0xff, e.duration & 0xff)
}

interface Current {
  timestamp: number
  event: number
  duration: number
  lastSeenMs: number
  reported: boolean
}

/**
 * One receiver per RTP stream. An event is identified by its RTP timestamp (all packets of a
 * press share it); it is reported at its first end packet, when a new press starts without
 * one, or by flush() after `timeoutMs` of silence.
 */
export class DtmfReceiver {
  private current: Current | undefined
  private readonly recent: number[] = []

  constructor(
    readonly clockRate = 8000,
    readonly timeoutMs = 1000,
  ) {}

  push(payload: Uint8Array, rtpTimestamp: number, nowMs: number): DtmfEvent[] {
    const e = parseTelephoneEvent(payload)
    if (!e || e.event >= DTMF_DIGITS.length) return []
    const out: DtmfEvent[] = []
    const cur = this.current
    if (cur && cur.timestamp === rtpTimestamp && cur.event === e.event) {
      cur.lastSeenMs = nowMs
      cur.duration = Math.max(cur.duration, e.duration)
      if (e.end && !cur.reported) out.push(this.report(cur))
      return out
    }
    if (this.recent.includes(rtpTimestamp)) return out // a stray repeat of a press already reported
    if (cur && !cur.reported) out.push(this.report(cur))
    const next: Current = { timestamp: rtpTimestamp, event: e.event, duration: e.duration, lastSeenMs: nowMs, reported: false }
    this.current = next
    if (e.end) out.push(this.report(next))
    return out
  }

  /** Reports a press whose end packets never came, once `timeoutMs` has passed without packets. */
  flush(nowMs: number): DtmfEvent[] {
    const cur = this.current
    if (cur && !cur.reported && nowMs - cur.lastSeenMs >= this.timeoutMs) return [this.report(cur)]
    return []
  }

  private report(c: Current): DtmfEvent {
    c.reported = true
    this.recent.push(c.timestamp)
    if (this.recent.length > 8) this.recent.shift()
    return { digit: DTMF_DIGITS[c.event]!, durationMs: Math.round((c.duration / this.clockRate) * 1000), source: 'rfc4733' }
  }
}

export interface DtmfSendPacket {
  payload: Uint8Array
  marker: boolean
}

/**
 * The packets of one key press, one per `packetMs`: the first carries the marker bit, the
 * durations grow, and the final end packet is sent three times (RFC 4733 section 2.5.1.4).
 * All share one RTP timestamp, which the sender assigns.
 */
export function dtmfPackets(digit: string, options: { durationMs?: number; clockRate?: number; packetMs?: number; volume?: number } = {}): DtmfSendPacket[] {
  const event = DTMF_DIGITS.indexOf(digit.toUpperCase())
  if (digit.length !== 1 || event < 0) throw new RangeError(`not a DTMF digit: ${JSON.stringify(digit)}`)
  const clockRate = options.clockRate ?? 8000
  const packetMs = options.packetMs ?? 20
  const durationMs = Math.max(packetMs, options.durationMs ?? 100)
  const volume = options.volume ?? 10
  const step = (clockRate * packetMs) / 1000
  const total = Math.round((clockRate * durationMs) / 1000)
  const out: DtmfSendPacket[] = []
  for (let d = step; d < total; d += step) {
    out.push({ payload: serializeTelephoneEvent({ event, end: false, volume, duration: d }), marker: out.length === 0 })
  }
  const end = serializeTelephoneEvent({ event, end: true, volume, duration: Math.min(total, 0xffff) })
  for (let i = 0; i < 3; i++) out.push({ payload: end, marker: out.length === 0 })
  return out
}
