// The media-stream WebSocket's messages, in the shape of Twilio Media Streams (docs/media-stream.md).
// Pure: what a client sends is parsed here, a bad message earns its close code and reason, and
// the server's messages are written here.

export type StreamFormat = 'mulaw' | 'pcm16'

/** Close codes (RFC 6455 section 7.4.1) and what each means here. */
export const CLOSE = {
  /** The call ended: the agent hung up (after `stop`), or the client said `stop`. */
  normal: 1000,
  /** A frame type the format does not use: binary in mulaw, a text `media` in pcm16. */
  unsupportedData: 1003,
  /** Not JSON, not an object, an unknown event, a missing or bad field, bad base64, half a sample. */
  invalidPayload: 1007,
  /** The client fell behind reading, sent audio far faster than real time, or left too many marks waiting. */
  policy: 1008,
  /** A message over MAX_MESSAGE_BYTES. */
  tooBig: 1009,
  /** The call could not be started here. */
  serverError: 1011,
  /** The appliance is stopping or busy: try again later. */
  tryAgainLater: 1013,
} as const

/** The largest message a client may send, text or binary. */
export const MAX_MESSAGE_BYTES = 64 * 1024
export const MAX_MARK_NAME = 256

export interface FormatSpec {
  /** The call media's codec: CallMedia's G.711 μ-law, or 16 kHz PCM as little-endian bytes. */
  codec: 'PCMU' | 'L16'
  mediaFormat: { encoding: 'audio/x-mulaw' | 'audio/x-l16'; sampleRate: 8000 | 16000; channels: 1 }
  /** Bytes of 20 ms of audio. */
  frameBytes: number
  bytesPerSample: 1 | 2
  /** About 2 s of what the server sends a second: a client this far behind reading is closed. */
  slowReaderBytes: number
}

export const FORMATS: Record<StreamFormat, FormatSpec> = {
  // a media message of 20 ms is ~330 bytes of JSON
  mulaw: { codec: 'PCMU', mediaFormat: { encoding: 'audio/x-mulaw', sampleRate: 8000, channels: 1 }, frameBytes: 160, bytesPerSample: 1, slowReaderBytes: 100 * 330 },
  pcm16: { codec: 'L16', mediaFormat: { encoding: 'audio/x-l16', sampleRate: 16000, channels: 1 }, frameBytes: 640, bytesPerSample: 2, slowReaderBytes: 100 * 640 },
}

export type ClientEvent =
  | { event: 'media'; audio: Uint8Array }
  | { event: 'mark'; name: string }
  | { event: 'clear' }
  | { event: 'dtmf'; digit: string }
  | { event: 'stop' }
  /** `connected` and `start`, which a client that plays Twilio's side may send too. */
  | { event: 'ignored' }

export type Parsed = { ok: true; message: ClientEvent } | { ok: false; code: number; reason: string }

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/
const DIGIT = /^[0-9*#A-Da-d]$/
const EVENTS = 'media, mark, clear, dtmf or stop'

const bad = (code: number, reason: string): Parsed => ({ ok: false, code, reason })
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)
/** A value for a close reason: short, printable, quoted. */
const shown = (v: unknown) => JSON.stringify(typeof v === 'string' && v.length > 24 ? `${v.slice(0, 24)}…` : v) ?? String(v)

/** One client message, text or binary, for a stream of `format`. */
export function parseClientMessage(data: string | Uint8Array, format: StreamFormat): Parsed {
  if (typeof data !== 'string') {
    if (data.byteLength > MAX_MESSAGE_BYTES) return bad(CLOSE.tooBig, `a message may hold at most ${MAX_MESSAGE_BYTES} bytes`)
    if (format !== 'pcm16') return bad(CLOSE.unsupportedData, 'binary frames carry audio only with format=pcm16; send media messages')
    if (data.byteLength % 2 !== 0) return bad(CLOSE.invalidPayload, 'a pcm16 frame holds whole 16-bit samples (an even number of bytes)')
    return { ok: true, message: { event: 'media', audio: data } }
  }
  if (data.length > MAX_MESSAGE_BYTES || Buffer.byteLength(data) > MAX_MESSAGE_BYTES) return bad(CLOSE.tooBig, `a message may hold at most ${MAX_MESSAGE_BYTES} bytes`)
  let msg: unknown
  try {
    msg = JSON.parse(data)
  } catch {
    return bad(CLOSE.invalidPayload, 'a text message must be a JSON object')
  }
  if (!isObject(msg)) return bad(CLOSE.invalidPayload, 'a text message must be a JSON object')
  switch (msg.event) {
    case 'media':
      return media(msg.media, format)
    case 'mark': {
      const name = isObject(msg.mark) ? msg.mark.name : undefined
      if (typeof name !== 'string' || name.length === 0 || name.length > MAX_MARK_NAME) return bad(CLOSE.invalidPayload, `mark.name must be a string of 1 to ${MAX_MARK_NAME} characters`)
      return { ok: true, message: { event: 'mark', name } }
    }
    case 'dtmf': {
      const digit = isObject(msg.dtmf) ? msg.dtmf.digit : undefined
      if (typeof digit !== 'string' || !DIGIT.test(digit)) return bad(CLOSE.invalidPayload, `dtmf.digit must be one of 0-9 * # A-D, not ${shown(digit)}`)
      return { ok: true, message: { event: 'dtmf', digit: digit.toUpperCase() } }
    }
    case 'clear':
    case 'stop':
      return { ok: true, message: { event: msg.event } }
    case 'connected':
    case 'start':
      return { ok: true, message: { event: 'ignored' } }
    default:
      return bad(CLOSE.invalidPayload, msg.event === undefined ? `a message needs an event (${EVENTS})` : `unknown event ${shown(msg.event)} (expected ${EVENTS})`)
  }
}

function media(body: unknown, format: StreamFormat): Parsed {
  if (format === 'pcm16') return bad(CLOSE.unsupportedData, 'with format=pcm16 audio travels in binary frames, not media messages')
  const payload = isObject(body) ? body.payload : undefined
  if (typeof payload !== 'string') return bad(CLOSE.invalidPayload, 'media.payload must be a base64 string')
  if (!BASE64.test(payload)) return bad(CLOSE.invalidPayload, 'media.payload is not valid base64')
  return { ok: true, message: { event: 'media', audio: Buffer.from(payload, 'base64') } }
}

/** A close reason within the 123 bytes a close frame allows. */
export function closeReason(reason: string): string {
  if (Buffer.byteLength(reason) <= 123) return reason
  let cut = reason.slice(0, 120)
  while (Buffer.byteLength(cut) > 120) cut = cut.slice(0, -1)
  return `${cut}…`
}

export interface StreamStart {
  callSid: string
  /** The workspace (Twilio's account). */
  accountSid: string
  agentId: string
  format: StreamFormat
}

/** The server's messages of one stream, numbered as Twilio numbers them (strings, from 1). */
export class ServerMessages {
  private sequence = 0
  private chunk = 0

  constructor(readonly streamSid: string) {}

  private write(event: string, body: Record<string, unknown>): string {
    return JSON.stringify({ event, sequenceNumber: String(++this.sequence), ...body, streamSid: this.streamSid })
  }

  connected(): string {
    return JSON.stringify({ event: 'connected', protocol: 'Call', version: '1.0.0' })
  }

  start(s: StreamStart): string {
    return this.write('start', {
      start: {
        streamSid: this.streamSid,
        accountSid: s.accountSid,
        callSid: s.callSid,
        agentId: s.agentId,
        tracks: ['inbound', 'outbound'],
        customParameters: {},
        mediaFormat: FORMATS[s.format].mediaFormat,
      },
    })
  }

  /** The agent's audio of 20 ms, `timestampMs` from the start of the stream. */
  media(payload: Uint8Array, timestampMs: number): string {
    const base64 = Buffer.from(payload.buffer, payload.byteOffset, payload.byteLength).toString('base64')
    return this.write('media', { media: { track: 'outbound', chunk: String(++this.chunk), timestamp: String(Math.round(timestampMs)), payload: base64 } })
  }

  mark(name: string): string {
    return this.write('mark', { mark: { name } })
  }

  clear(): string {
    return this.write('clear', {})
  }

  stop(s: { accountSid: string; callSid: string }): string {
    return this.write('stop', { stop: s })
  }
}
