// Seeded mutations of a well-formed SIP message. Each says whether its result is malformed by
// construction ('malformed': the appliance must answer 400 or drop it) or may still be valid
// ('any': only no 5xx and no crash are required). A fixed seed replays the same run.

export type Verdict = 'malformed' | 'any'

export interface Mutant {
  kind: string
  bytes: Buffer
  verdict: Verdict
}

/** Small deterministic PRNG (mulberry32). */
export function rng(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

const COMPACT: Record<string, string> = { i: 'call-id', f: 'from', t: 'to', v: 'via', l: 'content-length', c: 'content-type', m: 'contact' }
const canonical = (line: string) => {
  const name = line.slice(0, line.indexOf(':')).trim().toLowerCase()
  return COMPACT[name] ?? name
}
const MANDATORY = new Set(['via', 'from', 'to', 'call-id', 'cseq'])
const CONFLICTING: Record<string, string> = {
  'call-id': 'Call-ID: another-call@fuzz.invalid', cseq: 'CSeq: 4711 OPTIONS', from: 'From: <sip:other@fuzz.invalid>;tag=other',
  to: 'To: <sip:other@fuzz.invalid>', 'max-forwards': 'Max-Forwards: 3', 'content-type': 'Content-Type: text/plain',
}
const BAD_START_LINES = [
  (l: string) => l.replace(' ', '  ').replace(/ SIP\/2\.0$/, ''), // no version
  (l: string) => l.replace(/^\S+/, 'INV@ITE'), // a method that is not a token
  (l: string) => l.replace(/^(\S+) \S+/, '$1 <>'), // no URI
  (l: string) => l.replace(/^(\S+) /, '$1 sip: '), // an empty URI, then junk
  () => '\u0000\u0001\u0002 garbage SIP/2.0',
  () => '',
  (l: string) => `${l} extra`,
]

interface Parts {
  start: string
  headers: string[]
  body: string
}

function split(b: Buffer): Parts {
  const s = b.toString('latin1')
  const end = s.indexOf('\r\n\r\n')
  const head = end < 0 ? s : s.slice(0, end)
  // unfold continuation lines, so each entry is one header
  const lines = head.replace(/\r\n[ \t]+/g, ' ').split('\r\n')
  return { start: lines[0] ?? '', headers: lines.slice(1), body: end < 0 ? '' : s.slice(end + 4) }
}

const join = (p: Parts) => Buffer.from([p.start, ...p.headers, '', p.body].join('\r\n'), 'latin1')
const pick = <T>(r: () => number, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!
const int = (r: () => number, lo: number, hi: number) => lo + Math.floor(r() * (hi - lo + 1))

/** One mutation of `src`, chosen and shaped by `r`. `maxBytes` keeps UDP datagrams sendable. */
export function mutate(src: Buffer, r: () => number, maxBytes = 65_000): Mutant {
  const p = split(src)
  const isResponse = p.start.startsWith('SIP/')
  const hasLength = p.headers.some((h) => canonical(h) === 'content-length')
  switch (int(r, 0, 8)) {
    case 0: { // byte flips
      const b = Buffer.from(src)
      for (let i = int(r, 1, 8); i > 0; i--) b[Math.floor(r() * b.length)] = Math.floor(r() * 256)
      return { kind: 'flip', bytes: b, verdict: 'any' }
    }
    case 1: // truncation: an incomplete head, or a body shorter than its Content-Length
      return { kind: 'truncate', bytes: src.subarray(0, Math.floor(r() * (src.length - 1))), verdict: hasLength ? 'malformed' : 'any' }
    case 2: { // a header repeated; a single-valued one with another value is malformed
      const i = Math.floor(r() * p.headers.length)
      const line = p.headers[i]!
      const other = CONFLICTING[canonical(line)]
      const copy = other && r() < 0.7 ? other : line
      p.headers.splice(int(r, 0, p.headers.length), 0, copy)
      return { kind: copy === line ? 'duplicate-header' : 'conflicting-header', bytes: join(p), verdict: copy === line ? 'any' : 'malformed' }
    }
    case 3: { // a header removed; the last of a mandatory one makes it malformed
      const i = Math.floor(r() * p.headers.length)
      const name = canonical(p.headers[i]!)
      p.headers.splice(i, 1)
      const gone = MANDATORY.has(name) && !p.headers.some((h) => canonical(h) === name)
      return { kind: `remove-${name}`, bytes: join(p), verdict: gone ? 'malformed' : 'any' }
    }
    case 4: { // a huge header value
      const size = pick(r, [1_000, 8_000, 30_000, 70_000])
      const value = pick(r, ['a', ';', ',', '%', '"', ' '])
      const budget = Math.max(0, Math.min(size, maxBytes - src.length - 20))
      if (r() < 0.5 && p.headers.length) {
        const i = Math.floor(r() * p.headers.length)
        p.headers[i] += value.repeat(budget)
      } else p.headers.splice(int(r, 0, p.headers.length), 0, `X-Fuzz: ${value.repeat(budget)}`)
      return { kind: 'huge-header', bytes: join(p), verdict: 'any' }
    }
    case 5: { // a bad Content-Length
      const len = Buffer.byteLength(p.body, 'latin1')
      const bad = pick(r, ['abc', '-1', '1e3', '99999999999999999999', '', '0x10', '12 34', String(len + int(r, 1, 50))])
      const i = p.headers.findIndex((h) => canonical(h) === 'content-length')
      const line = `Content-Length: ${bad}`
      if (i >= 0) p.headers[i] = line
      else p.headers.push(line)
      return { kind: 'bad-content-length', bytes: join(p), verdict: 'malformed' }
    }
    case 6: { // CRLF mangled
      const s = src.toString('latin1')
      const how = int(r, 0, 3)
      if (how === 0) return { kind: 'bare-lf', bytes: Buffer.from(s.replaceAll('\r\n', '\n'), 'latin1'), verdict: 'any' }
      if (how === 1) return { kind: 'bare-cr', bytes: Buffer.from(s.replace(/\r\n(?=[^\r])/, '\r'), 'latin1'), verdict: 'any' }
      if (how === 2) { // a header line cut in two: the second half is a line without a colon
        const i = p.headers.findIndex((h) => /^[^:]+:\s*\S{4,}/.test(h) && MANDATORY.has(canonical(h)))
        if (i < 0) break
        const h = p.headers[i]!
        const colon = h.indexOf(':')
        p.headers.splice(i, 1, h.slice(0, colon + 1), `x${h.slice(colon + 1).trim()}`.replace(/:/g, ''))
        return { kind: 'split-header', bytes: join(p), verdict: 'malformed' }
      }
      const at = Math.floor(r() * s.length)
      return { kind: 'extra-crlf', bytes: Buffer.from(s.slice(0, at) + '\r\n\r\n' + s.slice(at), 'latin1'), verdict: 'any' }
    }
    case 7: { // a bad start line
      const f = pick(r, BAD_START_LINES)
      p.start = f(p.start)
      return { kind: 'bad-start-line', bytes: join(p), verdict: 'malformed' }
    }
    default: { // lines shuffled (the start line too, sometimes)
      const lines = [p.start, ...p.headers]
      for (let i = lines.length - 1; i > 0; i--) {
        const j = Math.floor(r() * (i + 1))
        ;[lines[i], lines[j]] = [lines[j]!, lines[i]!]
      }
      const moved = lines[0] !== p.start
      return { kind: 'shuffle', bytes: join({ start: lines[0]!, headers: lines.slice(1), body: p.body }), verdict: moved && !isResponse ? 'malformed' : 'any' }
    }
  }
  return { kind: 'none', bytes: Buffer.from(src), verdict: 'any' }
}
