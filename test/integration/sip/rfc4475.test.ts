// Every RFC 4475 torture message, over UDP and over TCP, against a running user agent: each
// gets the answer the shared README lists (or is dropped), never a 5xx, and the agent lives on.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { UserAgent, header, type SipResponse } from '../../../src/realtime/telephony/sip/index.ts'
import { InMemoryNumberDirectory } from '../../helpers/number-directory.ts'
import { SipPeer } from '../../helpers/sip-peer.ts'
import { sipTestdataDir } from '../../helpers/sip-testdata.ts'
import { until } from '../../helpers/until.ts'

type Want = { status: number[]; header?: string } | 'drop'

const ok = (...status: number[]): Want => ({ status })
const EXPECTED: Record<string, Want> = {
  // 3.1.1 valid: processed normally (our test application answers calls with 486 Busy Here)
  wsinv: ok(481), // it carries a To tag: a request inside a dialog we do not have (12.2.2)
  intmeth: ok(405), esc01: ok(486), escnull: ok(405), esc02: ok(405), lwsdisp: ok(200),
  longreq: ok(486), dblreq: ok(405), semiuri: ok(200), transports: ok(200), mpart01: ok(405),
  unreason: 'drop', noreason: 'drop',
  // 3.1.2 invalid
  badinv01: ok(400), clerr: ok(400), ncl: ok(400), scalar02: ok(400), quotbal: ok(400), ltgtruri: ok(400),
  lwsruri: ok(400), lwsstart: ok(400), trws: ok(400), escruri: ok(400), baddate: ok(400), regbadct: ok(400),
  badaspec: ok(400), baddn: ok(400), mismatch01: ok(400), mismatch02: ok(400), badvers: ok(505),
  scalarlg: 'drop', bigcode: 'drop',
  // 3.2 to 3.4: the application decides
  badbranch: ok(200), insuf: ok(400), unkscm: ok(416), novelsc: ok(416), bext01: { status: [420], header: 'unsupported' },
  invut: { status: [415], header: 'accept' }, multi01: ok(400), mcl01: ok(400), sdp01: ok(406, 488), bcast: 'drop',
  zeromf: ok(200), unksm2: ok(405), regaut01: ok(405), cparam01: ok(405), cparam02: ok(405), regescrt: ok(405),
  inv2543: ok(486),
  // not in the RFC: an INVITE without a SIP version
  test: ok(400),
}

let ua: UserAgent
const called: string[] = []

beforeAll(async () => {
  const directory = new InMemoryNumberDirectory(
    ['vivekg', 'user', 'UserB', 'j.user'].map((number) => ({ number, trunkSources: ['127.0.0.1'] })),
  )
  ua = new UserAgent({ host: '127.0.0.1', publicHost: '127.0.0.1', port: 0, directory, timers: { t1: 20, t2: 160, t4: 200, timerD: 200 } })
  ua.on('call', (call) => {
    called.push(call.info.number)
    call.reject(486)
  })
  await ua.start()
})

afterAll(() => ua.stop())

const probe = (n: number) =>
  `OPTIONS sip:user@127.0.0.1 SIP/2.0\r\nVia: SIP/2.0/UDP 127.0.0.1:9;branch=z9hG4bKprobe${n}\r\nFrom: <sip:p@127.0.0.1>;tag=p\r\n` +
  `To: <sip:user@127.0.0.1>\r\nCall-ID: probe${n}\r\nCSeq: 1 OPTIONS\r\nMax-Forwards: 70\r\nContent-Length: 0\r\n\r\n`

let probes = 0
/** Sends an OPTIONS over UDP and waits for its 200: proof the agent is alive and has caught up. */
async function alive(): Promise<void> {
  const p = await SipPeer.udp(ua.ports.udp!)
  const n = ++probes
  p.send(probe(n))
  const res = (await p.waitFor((m) => m.kind === 'response' && header(m, 'call-id') === `probe${n}`)) as SipResponse
  expect(res.status).toBe(200)
  p.close()
}

for (const transport of ['udp', 'tcp'] as const) {
  describe(`RFC 4475 over ${transport.toUpperCase()}`, () => {
    test.each(Object.entries(EXPECTED))('%s', async (name, want) => {
      const bytes = new Uint8Array(readFileSync(join(sipTestdataDir(), 'rfc4475', `${name}.dat`)))
      const peer = transport === 'udp' ? await SipPeer.udp(ua.ports.udp!) : await SipPeer.tcp(ua.ports.tcp!)
      try {
        peer.send(bytes)
        // on a stream, clerr's Content-Length promises bytes that never come: nothing to answer yet
        const effective: Want = transport === 'tcp' && name === 'clerr' ? 'drop' : want
        if (effective === 'drop') {
          await alive()
          expect(peer.received).toEqual([])
          return
        }
        const res = (await peer.waitFor((m) => m.kind === 'response' && m.status >= 200)) as SipResponse
        expect(effective.status).toContain(res.status)
        if (effective.header) expect(header(res, effective.header)).toBeDefined()
      } finally {
        peer.close()
      }
      if (name !== "badvers") for (const m of peer.received) if (m.kind === "response") expect(m.status).toBeLessThan(500)
    })
  })
}

test('each valid INVITE reached the application once (the TCP copy matches the UDP transaction), and every transaction ends', async () => {
  expect(called.sort()).toEqual(['UserB', 'user', 'user'])
  await alive()
  await until(() => ua.stats().serverTransactions === 0 && ua.stats().calls === 0)
})
