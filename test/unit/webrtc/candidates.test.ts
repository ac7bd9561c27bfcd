// A browser's ICE candidates reach werift only when checks to their address are allowed: the
// probe of the third hardening round offered metadata, DNS, multicast and documentation addresses,
// names with ".local" inside, and hundreds of candidates.
import { expect, test } from 'bun:test'
import { CandidateGate, candidateRefusal, parseCandidate } from '../../../src/realtime/webrtc/candidates.ts'
import { NetworkList } from '../../../src/platform/net/index.ts'

const none = { allowNetworks: new NetworkList([]) }
const line = (address: string, port = 54400, transport = 'udp', type = 'host') => `a=candidate:1 1 ${transport} 2122260223 ${address} ${port} typ ${type}`

test('a candidate line is read as transport, address, port and type, with or without a=', () => {
  expect(parseCandidate(line('192.168.1.20'))).toEqual({ transport: 'udp', address: '192.168.1.20', port: 54400, type: 'host' })
  expect(parseCandidate('candidate:8 1 UDP 1 2001:4860::8888 60000 typ srflx raddr 0.0.0.0 rport 0')).toMatchObject({ transport: 'udp', address: '2001:4860::8888', type: 'srflx' })
  expect(parseCandidate('a=candidate:garbage')).toBeUndefined()
})

test('public, private and loopback addresses at ephemeral UDP ports are used', () => {
  for (const address of ['8.8.8.8', '192.168.1.20', '10.20.30.40', '172.16.5.5', '127.0.0.1', '2001:4860::8888', 'fd00::5']) {
    expect({ address, refusal: candidateRefusal(line(address), none) }).toEqual({ address, refusal: undefined })
  }
})

const refused: [string, string, RegExp][] = [
  ['cloud metadata', line('169.254.169.254', 8080), /metadata/],
  ['a well-known port of a private host (DNS)', line('10.1.2.3', 53), /port 53/],
  ['multicast DNS', line('224.0.0.251', 5353), /multicast/],
  ['documentation', line('192.0.2.99', 1610), /documentation/],
  ['link-local', line('169.254.10.1'), /link-local/],
  ['IPv6 link-local', line('fe80::1'), /link-local/],
  ['reserved', line('240.0.0.1'), /reserved/],
  ['unspecified', line('0.0.0.0'), /unspecified/],
  ['an mDNS name', line('3f1a9c2e-5d1b.local'), /never resolved/],
  ['a name with .local inside', line('printer.localdomain'), /never resolved/],
  ['a name ending elsewhere', line('x.local.example.com'), /never resolved/],
  ['TCP', line('192.168.1.20', 9, 'tcp'), /only UDP/],
  ['a port over 65535', line('192.168.1.20', 70000), /port 70000/],
]
for (const [what, l, reason] of refused) {
  test(`a candidate with ${what} is refused, saying why`, () => {
    expect(candidateRefusal(l, none)).toMatch(reason)
  })
}

test('WEBRTC_ALLOW_NETWORKS admits a refused class it lists, never multicast or unspecified', () => {
  const lab = { allowNetworks: new NetworkList(['192.0.2.0/24', '224.0.0.0/4', '0.0.0.0/8']) }
  expect(candidateRefusal(line('192.0.2.99', 40000), lab)).toBeUndefined()
  expect(candidateRefusal(line('224.0.0.251', 40000), lab)).toMatch(/multicast/)
  expect(candidateRefusal(line('0.0.0.0', 40000), lab)).toMatch(/unspecified/)
  expect(candidateRefusal(line('192.0.2.99', 161), lab)).toMatch(/port 161/)
})

test('a call takes at most its cap of candidates, offered and trickled together, and counts what it refused', () => {
  const gate = new CandidateGate({ ...none, maxRemoteCandidates: 20 })
  const offered = Array.from({ length: 300 }, (_, i) => line('127.0.0.1', 40000 + i))
  const sdp = ['v=0', 'm=audio 9 UDP/TLS/RTP/SAVPF 111', line('169.254.169.254', 8080), ...offered, 'a=end-of-candidates', ''].join('\r\n')
  const kept = gate.filterSdp(sdp).split('\r\n')
  expect(kept.filter((l) => l.startsWith('a=candidate'))).toEqual(offered.slice(0, 20))
  expect(kept).toContain('a=end-of-candidates')
  expect(kept[0]).toBe('v=0')
  expect(gate.admit(line('127.0.0.1', 50000))).toBe(false) // trickled after the cap
  expect(Object.fromEntries(gate.refused)).toEqual({ 'over 20 candidates for one call': 281, 'a metadata address (WEBRTC_ALLOW_NETWORKS admits networks other than multicast and unspecified)': 1 })
})
