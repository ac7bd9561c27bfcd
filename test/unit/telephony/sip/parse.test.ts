import { describe, expect, test } from 'bun:test'
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import {
  header, headerValues, parseMessage, serialize, SipParseError, StreamFramer, MAX_MESSAGE_BYTES, checkRequest,
  checkResponse, text, utf8, canonicalName, type SipMessage,
} from '../../../../src/realtime/telephony/sip/index.ts'
import { sipTestdataDir } from '../../../helpers/sip-testdata.ts'

const crlf = (lines: string[]) => lines.join('\r\n')

const INVITE = crlf([
  'INVITE sip:+15551230000@127.0.0.1:5060 SIP/2.0',
  'Via: SIP/2.0/UDP 10.0.0.1:5062;branch=z9hG4bK776asdhds;rport',
  'Max-Forwards: 70',
  'To: <sip:+15551230000@127.0.0.1>',
  'From: "Alice \\"A\\"" <sip:alice@10.0.0.1>;tag=1928301774',
  'Call-ID: a84b4c76e66710@pc33',
  'CSeq: 314159 INVITE',
  'Contact: <sip:alice@10.0.0.1:5062>',
  'Content-Type: application/sdp',
  'Content-Length: 5',
  '',
  'v=0',
  '',
])

const RESPONSE = crlf([
  'SIP/2.0 180 Ringing',
  'Via: SIP/2.0/TCP 10.0.0.1;branch=z9hG4bKnashds8;received=192.0.2.1',
  'To: <sip:bob@example.com>;tag=a6c85cf',
  'From: <sip:alice@example.com>;tag=1928301774',
  'Call-ID: a84b4c76e66710',
  'CSeq: 1 INVITE',
  'Content-Length: 0',
  '',
  '',
])

describe('parse then serialize', () => {
  test.each([
    ['an INVITE with a body', INVITE],
    ['a provisional response', RESPONSE],
    ['a request without body', crlf(['OPTIONS sip:a@b SIP/2.0', 'Via: SIP/2.0/UDP h;branch=z9hG4bK1', 'Content-Length: 0', '', ''])],
  ])('gives back the same bytes for %s', (_, raw) => {
    expect(text(serialize(parseMessage(utf8(raw)).message))).toBe(raw)
  })

  test('every RFC 4475 message that parses is stable under parse(serialize(parse(x)))', () => {
    const dir = join(sipTestdataDir(), 'rfc4475')
    let checked = 0
    for (const f of readdirSync(dir)) {
      let first
      try {
        first = parseMessage(new Uint8Array(readFileSync(join(dir, f))))
      } catch {
        continue
      }
      if (first.problem) continue
      const m = first.message
      if (!(m.kind === 'request' ? checkRequest(m) : checkResponse(m)).ok) continue
      // serialize always writes a Content-Length (the real one), so compare without it
      const plain = (x: SipMessage) => ({ ...x, body: [...x.body], headers: x.headers.filter((h) => canonicalName(h.name) !== 'content-length') })
      expect(plain(parseMessage(serialize(m)).message)).toEqual(plain(m))
      checked++
    }
    expect(checked).toBe(27)
  })
})

describe('headers', () => {
  test('compact forms are found under their long names', () => {
    const m = parseMessage(utf8(crlf(['OPTIONS sip:a@b SIP/2.0', 'v: SIP/2.0/UDP h;branch=z9hG4bK1', 'i: abc', 'f: <sip:x@y>;tag=1', 't: sip:z@w', 'm: <sip:c@d>', 'l: 0', '', '']))).message
    expect(header(m, 'Call-ID')).toBe('abc')
    expect(header(m, 'from')).toBe('<sip:x@y>;tag=1')
    expect(header(m, 'to')).toBe('sip:z@w')
    expect(header(m, 'contact')).toBe('<sip:c@d>')
    expect(header(m, 'via')).toStartWith('SIP/2.0/UDP')
  })

  test('folded lines are joined and multi-value headers split outside quotes and brackets', () => {
    const m = parseMessage(utf8(crlf([
      'OPTIONS sip:a@b SIP/2.0', 'Via: SIP/2.0/UDP a;branch=z9hG4bK1,', ' SIP/2.0/TCP b;branch=z9hG4bK2', 'Via: SIP/2.0/UDP c',
      'Contact: "x, y" <sip:a@b;p=1,2>, <sip:c@d>', 'l: 0', '', '',
    ]))).message
    expect(headerValues(m, 'via')).toEqual(['SIP/2.0/UDP a;branch=z9hG4bK1', 'SIP/2.0/TCP b;branch=z9hG4bK2', 'SIP/2.0/UDP c'])
    expect(headerValues(m, 'contact')).toEqual(['"x, y" <sip:a@b;p=1,2>', '<sip:c@d>'])
  })
})

describe('limits and framing', () => {
  test('a message over 64 KiB is refused', () => {
    const big = utf8(INVITE + 'x'.repeat(MAX_MESSAGE_BYTES))
    expect(() => parseMessage(big)).toThrow(SipParseError)
  })

  test('a datagram with a shorter body than Content-Length is a 400, a longer one is cut', () => {
    expect(parseMessage(utf8(INVITE.slice(0, -2))).problem?.status).toBe(400)
    expect(text(parseMessage(utf8(INVITE + 'garbage')).message.body)).toBe('v=0\r\n')
  })

  test('a stream is cut into messages by Content-Length whatever the chunking', () => {
    const bytes = utf8('\r\n\r\n' + INVITE + RESPONSE + INVITE)
    for (const size of [1, 7, 100, bytes.length]) {
      const framer = new StreamFramer()
      const got: string[] = []
      let keepalives = 0
      for (let i = 0; i < bytes.length; i += size) {
        for (const ev of framer.push(bytes.subarray(i, i + size))) {
          if ('message' in ev) got.push(text(ev.message))
          else if ('keepalive' in ev) keepalives++
          else throw new Error(ev.error)
        }
      }
      expect(got).toEqual([INVITE, RESPONSE, INVITE])
      expect(keepalives).toBe(1)
    }
  })

  test('a stream with a bad Content-Length or endless headers reports an error', () => {
    const head = utf8('OPTIONS sip:a@b SIP/2.0\r\nl: -5\r\n\r\n')
    expect(new StreamFramer().push(head)).toEqual([{ error: 'bad Content-Length', head }])
    const f = new StreamFramer()
    expect(f.push(utf8('OPTIONS sip:a@b SIP/2.0\r\nX: ' + 'y'.repeat(MAX_MESSAGE_BYTES)))).toEqual([{ error: 'headers too large' }])
  })
})

/** What RFC 4475 section 3 expects of each message at the parser level. */
const RFC4475: Record<string, 'ok' | 400 | 505 | 'drop'> = {
  wsinv: 'ok', intmeth: 'ok', esc01: 'ok', escnull: 'ok', esc02: 'ok', lwsdisp: 'ok', longreq: 'ok', dblreq: 'ok',
  semiuri: 'ok', transports: 'ok', mpart01: 'ok', unreason: 'ok', noreason: 'ok',
  badinv01: 400, clerr: 400, ncl: 400, scalar02: 400, quotbal: 400, ltgtruri: 400, lwsruri: 400, lwsstart: 400,
  trws: 400, escruri: 400, baddate: 400, regbadct: 400, badaspec: 400, baddn: 400, mismatch01: 400, mismatch02: 400,
  badvers: 505, scalarlg: 'drop', bigcode: 'drop', test: 400,
  badbranch: 'ok', insuf: 400, unkscm: 'ok', novelsc: 'ok', bext01: 'ok', invut: 'ok', multi01: 400, mcl01: 400,
  sdp01: 'ok', bcast: 'ok', zeromf: 'ok', unksm2: 'ok', regaut01: 'ok', cparam01: 'ok', cparam02: 'ok', regescrt: 'ok',
  inv2543: 'ok',
}

describe('RFC 4475 torture messages', () => {
  test.each(Object.entries(RFC4475))('%s is classified as %p', (name, want) => {
    const bytes = new Uint8Array(readFileSync(join(sipTestdataDir(), 'rfc4475', `${name}.dat`)))
    let got: 'ok' | number | 'drop'
    try {
      const p = parseMessage(bytes)
      if (p.problem) got = p.problem.status
      else {
        const c = p.message.kind === 'request' ? checkRequest(p.message) : checkResponse(p.message)
        got = c.ok ? 'ok' : p.message.kind === 'response' ? 'drop' : c.problem.status
      }
    } catch (err) {
      expect(err).toBeInstanceOf(SipParseError)
      got = 'drop'
    }
    expect(got).toBe(want)
  })
})
