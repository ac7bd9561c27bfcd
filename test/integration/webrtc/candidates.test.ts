// What the appliance sends to the candidates of a hostile web-call offer, counted at the far end:
// 300 offered and 100 trickled candidates, each a UDP socket of this test on 127.0.0.1 that never
// answers. Only WEBRTC_MAX_REMOTE_CANDIDATES of them get connectivity checks, and names (mDNS or
// not) make werift neither resolve nor bind the multicast DNS port.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { createSocket, type Socket } from 'node:dgram'
import { readdirSync, readFileSync, readlinkSync } from 'node:fs'
import { startTestAppliance, type TestAppliance } from '../../helpers/appliance.ts'
import { waitForCall } from '../../helpers/calls.ts'
import { gatheredOffer, loopbackPeer } from '../../helpers/loopback-peer.ts'

const CAP = 20
let t: TestAppliance
let agentId: string
const sockets: Socket[] = []

beforeAll(async () => {
  t = await startTestAppliance({ WEBRTC_HOST_ADDRESSES: '127.0.0.1', WEB_CALL_CONNECT_MS: 3000, WEBRTC_MAX_REMOTE_CANDIDATES: CAP })
  const agent = await t.api('POST', '/api/agents', { body: { name: 'Probe target', welcome: { mode: 'agent_speaks_first', message: 'Hello.' } } })
  agentId = agent.body.agent.id
})
afterAll(async () => {
  for (const s of sockets) s.close()
  await t?.stop()
})

/** A UDP socket that counts the STUN binding requests it receives and answers none. */
async function silentFarEnd(): Promise<{ port: number; requests: () => number }> {
  const s = createSocket('udp4')
  sockets.push(s)
  let n = 0
  s.on('message', (m) => {
    if (m.length >= 20 && m.readUInt16BE(0) === 0x0001) n++
  })
  await new Promise<void>((r) => s.bind(0, '127.0.0.1', r))
  return { port: s.address().port, requests: () => n }
}

const candidate = (i: number, address: string, port: number) => `candidate:${i} 1 udp ${2122260223 - i} ${address} ${port} typ host`

/** UDP ports bound by sockets of this process (the appliance runs in it): /proc/net/udp rows whose inode one of our descriptors holds. */
function ownUdpPorts(): Set<number> {
  const inodes = new Set<string>()
  for (const fd of readdirSync('/proc/self/fd')) {
    try {
      const m = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/self/fd/${fd}`))
      if (m) inodes.add(m[1]!)
    } catch {}
  }
  const ports = new Set<number>()
  for (const row of readFileSync('/proc/net/udp', 'utf8').split('\n').slice(1)) {
    const cols = row.trim().split(/\s+/)
    if (cols.length > 9 && inodes.has(cols[9]!)) ports.add(parseInt(cols[1]!.split(':')[1]!, 16))
  }
  return ports
}

test('300 offered and 100 trickled candidates that never answer: checks go to at most WEBRTC_MAX_REMOTE_CANDIDATES of them, and names are never resolved', async () => {
  const ends = await Promise.all(Array.from({ length: 400 }, silentFarEnd))
  const { pc } = loopbackPeer()
  const offer = await gatheredOffer(pc)
  await pc.close()
  // the browser's own candidates replaced by the far ends, and names with .local inside first
  const names = ['3f1a9c2e.local', 'printer.localdomain', 'x.local.example.com'].map((n, i) => `a=${candidate(900 + i, n, 40000 + i)}`)
  const offered = ends.slice(0, 300).map((e, i) => `a=${candidate(i, '127.0.0.1', e.port)}`)
  const sdp = offer
    .split(/\r?\n/)
    .filter((l) => !l.startsWith('a=candidate') && l !== '')
    .concat(names, offered)
    .join('\r\n') + '\r\n'
  expect(sdp.length).toBeLessThan(32768)
  const r = await t.api('POST', `/api/agents/${agentId}/web-calls`, { body: { sdp } })
  expect(r.status, JSON.stringify(r.body)).toBe(201)
  for (const [i, e] of ends.slice(300).entries()) {
    const trickled = await t.api('POST', `/api/agents/${agentId}/web-calls/${r.body.callId}/candidates`, { body: { candidate: candidate(300 + i, '127.0.0.1', e.port), sdpMid: '0', sdpMLineIndex: 0 } })
    expect(trickled.status).toBe(200)
  }
  // nothing connects: the call fails at WEB_CALL_CONNECT_MS and its peer closes, ending the checks
  const call = await waitForCall(t, (c) => c.id === r.body.callId && c.status === 'ended', 20_000)
  expect(call.outcome).toBe('failed')
  const checked = ends.filter((e) => e.requests() > 0)
  const sent = ends.reduce((n, e) => n + e.requests(), 0)
  console.log(`checks: ${sent} STUN requests to ${checked.length} of 400 candidates (cap ${CAP})`)
  expect(checked.length).toBeGreaterThan(0)
  expect(checked.length).toBeLessThanOrEqual(CAP)
  // none of the trickled ones: the offer had used up the cap
  expect(ends.slice(300).every((e) => e.requests() === 0)).toBe(true)
  expect(sent).toBeLessThanOrEqual(CAP * 10)
  // werift joins multicast DNS on 5353 only to resolve a name; no name reached it
  expect(ownUdpPorts().size).toBeGreaterThan(0)
  expect(ownUdpPorts().has(5353)).toBe(false)
}, 60_000)
