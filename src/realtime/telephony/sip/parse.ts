// Message framing: bytes -> SipMessage (RFC 3261 sections 7 and 18.3). Datagrams carry one
// message each; streams are cut by Content-Length in StreamFramer.
import { canonicalName, type Header, type SipMessage } from './message.ts'

/** Largest message accepted on any transport; larger is refused (dropped or connection closed). */
export const MAX_MESSAGE_BYTES = 65_536

export class SipParseError extends Error {}

/** A SIP-level refusal: the status and reason phrase to answer a request with. */
export class SipError extends Error {
  constructor(
    readonly status: number,
    readonly reason: string,
  ) {
    super(`${status} ${reason}`)
  }
}

export type Problem = SipError

export interface Parsed {
  message: SipMessage
  /** Set when the message was framed but breaks the grammar; requests get this as their answer. */
  problem?: Problem
}

const latin1 = new TextDecoder('latin1')
const utf8 = new TextDecoder()

const IS_STATUS_LINE = /^SIP\//i
const STATUS_LINE = /^SIP\/(\d+\.\d+) (\d{3})(?: (.*))?$/i
const REQUEST_LINE = /^([A-Za-z0-9\-.!%*_+`'~]+) (\S+) (SIP\/\d+\.\d+)$/
const HEADER_NAME = /^[A-Za-z0-9\-.!%*_+`'~]+$/
const CRLFCRLF_BYTES = Buffer.from('\r\n\r\n')

function indexOfSeq(buf: Uint8Array, from = 0): number {
  const b = Buffer.isBuffer(buf) ? buf : Buffer.from(buf.buffer, buf.byteOffset, buf.byteLength)
  return b.indexOf(CRLFCRLF_BYTES, from)
}

function skipLeadingCrlf(buf: Uint8Array): number {
  let i = 0
  while (i < buf.length && (buf[i] === 13 || buf[i] === 10)) i++
  return i
}

/**
 * Parses one message. `datagram` means the bytes are a whole UDP payload: a body shorter than
 * Content-Length is an error and extra bytes after it are ignored (RFC 3261 18.3).
 */
export function parseMessage(bytes: Uint8Array, datagram = true): Parsed {
  if (bytes.length > MAX_MESSAGE_BYTES) throw new SipParseError('message too large')
  const start = skipLeadingCrlf(bytes)
  const end = indexOfSeq(bytes, start)
  if (end < 0) throw new SipParseError('no end of headers')
  const head = utf8.decode(bytes.subarray(start, end))
  const lines = head.split('\r\n')
  const first = lines.shift()!
  let problem: Problem | undefined
  const bad = (reason: string, status = 400) => {
    problem ??= new SipError(status, reason)
  }

  const headers: Header[] = []
  let contentLength: string | undefined
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!
    const c0 = line.charCodeAt(0)
    if (c0 === 32 || c0 === 9) {
      const prev = headers[headers.length - 1]
      if (!prev) bad('folded line without a header')
      else prev.value = (prev.value + ' ' + line.trim()).trim()
      continue
    }
    const colon = line.indexOf(':')
    let name = colon < 0 ? '' : line.slice(0, colon)
    const last = name.charCodeAt(name.length - 1)
    if (last === 32 || last === 9) name = name.trimEnd()
    if (colon < 0 || !HEADER_NAME.test(name)) {
      bad('malformed header line')
      continue
    }
    headers.push({ name, value: line.slice(colon + 1).trim() })
    if ((name.length === 14 || name.length === 1) && contentLength === undefined && canonicalName(name) === 'content-length') {
      contentLength = line.slice(colon + 1)
    }
  }

  let body = bytes.subarray(end + 4)
  if (contentLength !== undefined) {
    const raw = contentLength.trim()
    if (!/^\d+$/.test(raw)) bad('bad Content-Length')
    else {
      const n = Number(raw)
      if (n > body.length) {
        if (datagram) bad('Content-Length larger than the body')
      } else body = body.subarray(0, n)
    }
  } else if (!datagram) body = body.subarray(0, 0)

  let message: SipMessage
  if (IS_STATUS_LINE.test(first)) {
    const resp = STATUS_LINE.exec(first)
    if (!resp) throw new SipParseError('bad status line')
    const status = Number(resp[2])
    if (status < 100 || status > 699) throw new SipParseError('status code out of range')
    message = { kind: 'response', version: `SIP/${resp[1]}`, status, reason: resp[3] ?? '', headers, body }
    if (resp[1] !== '2.0') throw new SipParseError('unsupported version in response')
    if (problem) throw new SipParseError(problem.reason)
    return { message }
  }
  const req = REQUEST_LINE.exec(first)
  if (req) {
    message = { kind: 'request', method: req[1]!, uri: req[2]!, version: req[3]!.toUpperCase(), headers, body }
    if (message.version !== 'SIP/2.0') bad('Version Not Supported', 505)
  } else {
    const parts = first.trim().split(/\s+/)
    if (parts.length < 2 || !/^[A-Za-z0-9\-.!%*_+`'~]+$/.test(parts[0]!)) throw new SipParseError('bad start line')
    message = { kind: 'request', method: parts[0]!, uri: parts[1]!, version: 'SIP/2.0', headers, body }
    bad('malformed request line')
  }
  return { message, problem }
}

/** `head`: the header bytes of a message whose Content-Length cannot frame it, to answer 400. */
export type FramerEvent = { message: Uint8Array } | { error: string; head?: Uint8Array } | { keepalive: true }

/** Cuts a byte stream into messages by Content-Length; a framing error means close the stream. */
export class StreamFramer {
  private buf: Uint8Array = new Uint8Array(0)
  private failed = false
  private crlfRun = 0

  /** Bytes of a message begun but not yet complete (leading CRLFs are not counted). */
  get buffered(): number {
    return this.buf.length
  }

  push(chunk: Uint8Array): FramerEvent[] {
    if (this.failed) return []
    const joined = new Uint8Array(this.buf.length + chunk.length)
    joined.set(this.buf)
    joined.set(chunk, this.buf.length)
    this.buf = joined
    const out: FramerEvent[] = []
    for (;;) {
      const skip = skipLeadingCrlf(this.buf)
      this.crlfRun += skip
      if (this.crlfRun >= 4) {
        out.push({ keepalive: true })
        this.crlfRun = 0
      }
      if (skip) this.buf = this.buf.subarray(skip)
      if (this.buf.length === 0) break
      this.crlfRun = 0
      const end = indexOfSeq(this.buf)
      if (end < 0) {
        if (this.buf.length > MAX_MESSAGE_BYTES) return this.fail(out, 'headers too large')
        break
      }
      const head = latin1.decode(this.buf.subarray(0, end))
      const m = /\r\n(?:content-length|l)[ \t]*:[ \t]*([^\r]*)/i.exec(head)
      let length = 0
      if (m) {
        const v = m[1]!.trim()
        if (!/^\d{1,9}$/.test(v)) return this.fail(out, 'bad Content-Length', this.buf.slice(0, end + 4))
        length = Number(v)
      }
      const total = end + 4 + length
      if (total > MAX_MESSAGE_BYTES) return this.fail(out, 'message too large')
      if (this.buf.length < total) break
      out.push({ message: this.buf.slice(0, total) })
      this.buf = this.buf.subarray(total)
    }
    if (this.buf.byteOffset > MAX_MESSAGE_BYTES) this.buf = this.buf.slice()
    return out
  }

  private fail(out: FramerEvent[], error: string, head?: Uint8Array): FramerEvent[] {
    this.failed = true
    this.buf = new Uint8Array(0)
    out.push(head ? { error, head } : { error })
    return out
  }
}
