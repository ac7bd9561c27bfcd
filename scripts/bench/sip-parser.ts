// SIP parser throughput on the valid RFC 4475 messages, as a ratio to the npm `sip` package's
// parser measured in the same run. Both sides start from the received bytes: ours frames the
// message and parses Via, From, To, Call-ID and CSeq (what every transaction needs); `sip`
// decodes the bytes as its transport does, then parses every header it knows.
//   bun run scripts/bench/sip-parser.ts [seconds per side, default 3]
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import { checkRequest, checkResponse, parseMessage } from '../../src/realtime/telephony/sip/index.ts'
import { sipTestdataDir } from '../../test/helpers/sip-testdata.ts'

const VALID = ['wsinv', 'intmeth', 'esc01', 'escnull', 'esc02', 'lwsdisp', 'longreq', 'dblreq', 'semiuri', 'transports', 'mpart01', 'unreason', 'noreason']
const npmSip = createRequire(import.meta.url)('sip') as { parse(s: string): unknown }

const messages = VALID.map((name) => Buffer.from(readFileSync(join(sipTestdataDir(), 'rfc4475', `${name}.dat`))))
// only messages both parsers accept take part, so both do the same work
const mix = messages.filter((b) => {
  try {
    return npmSip.parse(b.toString('binary')) != null
  } catch {
    return false
  }
})
const bytes = mix.reduce((n, b) => n + b.length, 0)
const seconds = Number(process.argv[2] ?? 3)

function ours(b: Buffer): void {
  const { message } = parseMessage(b)
  if (message.kind === 'request') checkRequest(message)
  else checkResponse(message)
}

function theirs(b: Buffer): void {
  npmSip.parse(b.toString('binary'))
}

function measure(fn: (b: Buffer) => void, ms: number): number {
  let rounds = 0
  const start = performance.now()
  const end = start + ms
  while (performance.now() < end) {
    for (const b of mix) fn(b)
    rounds++
  }
  return (rounds * mix.length * 1000) / (performance.now() - start)
}

// the machine is shared: alternate short rounds and keep each side's median
const median = (xs: number[]) => xs.sort((x, y) => x - y)[Math.floor(xs.length / 2)]!
for (const fn of [ours, theirs]) for (let i = 0; i < 5000; i++) fn(mix[i % mix.length]!)
const runsA: number[] = []
const runsB: number[] = []
for (let r = 0; r < 7; r++) {
  runsA.push(measure(ours, (seconds * 1000) / 7))
  runsB.push(measure(theirs, (seconds * 1000) / 7))
}
const a = median(runsA)
const b = median(runsB)
console.log(`messages in the mix: ${mix.length} of ${VALID.length} valid RFC 4475 messages (${bytes} bytes)`)
console.log(`ours:        ${Math.round(a).toLocaleString('en')} messages/s (${((a * bytes) / mix.length / 1e6).toFixed(1)} MB/s)`)
console.log(`npm sip:     ${Math.round(b).toLocaleString('en')} messages/s (${((b * bytes) / mix.length / 1e6).toFixed(1)} MB/s)`)
console.log(`ratio ours / npm sip: ${(a / b).toFixed(2)}`)
