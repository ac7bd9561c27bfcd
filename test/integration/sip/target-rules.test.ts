// What our user agent refuses to send SIP to: link-local and metadata addresses, multicast,
// unspecified, maddr, and host names resolving to any of them; loopback and private trunks work.
// A real UDP socket stands where a refused request would have gone and must stay silent.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { TargetRefusedError, UserAgent } from '../../../src/realtime/telephony/sip/index.ts'
import { InMemoryNumberDirectory } from '../../helpers/number-directory.ts'
import { until } from '../../helpers/until.ts'
import { startUdpSink, type UdpSink } from '../../helpers/udp-sink.ts'

const SDP = 'v=0\r\no=- 1 1 IN IP4 127.0.0.1\r\ns=-\r\nc=IN IP4 127.0.0.1\r\nt=0 0\r\nm=audio 43000 RTP/AVP 0\r\na=rtpmap:0 PCMU/8000\r\n'
const lookups: string[] = []
const dns: Record<string, string[]> = {
  'trunk.example.test': ['127.0.0.1'],
  'rebound.example.test': ['127.0.0.1', '169.254.169.254'],
  'linklocal.example.test': ['fe80::1'],
}
let ua: UserAgent
let sink: UdpSink

beforeAll(async () => {
  sink = await startUdpSink()
  ua = new UserAgent({
    host: '127.0.0.1', publicHost: '127.0.0.1', port: 0, directory: new InMemoryNumberDirectory([]),
    timers: { t1: 50, t2: 400, t4: 200, timerD: 200 },
    resolveHost: async (host) => {
      lookups.push(host)
      return dns[host] ?? []
    },
  })
  await ua.start()
})

afterAll(async () => {
  await ua.stop()
  sink.close()
})

describe('SIP targets', () => {
  test.each([
    ['sip:+14155550100@169.254.169.254:80;transport=tcp', 'a metadata address'],
    ['sip:+14155550100@100.100.100.200', 'a metadata address'],
    ['sip:+14155550100@[fd00:ec2::254]', 'a metadata address'],
    ['sip:+14155550100@169.254.1.1', 'a link-local address'],
    ['sip:+14155550100@[fe80::1]', 'a link-local address'],
    ['sip:+14155550100@224.0.0.1', 'a multicast address'],
    ['sip:+14155550100@0.0.0.0', 'an unspecified address'],
    ['sip:+14155550100@metadata.google.internal', 'cloud metadata host'],
    ['sip:+14155550100@linklocal.example.test', 'linklocal.example.test resolves to fe80::1, a link-local address'],
    ['sip:+14155550100@rebound.example.test', 'rebound.example.test resolves to 169.254.169.254, a metadata address'],
  ])('dialling %s is refused before anything is sent (%s)', async (target, why) => {
    const placed = ua.placeCall({ target, from: { user: '+14155550111' }, sdp: SDP })
    await expect(placed).rejects.toBeInstanceOf(TargetRefusedError)
    await expect(placed).rejects.toThrow(why)
    expect(ua.stats().clientTransactions).toBe(0)
  })

  test('a maddr parameter is refused: nothing reaches the address it names nor the host', async () => {
    const target = `sip:+14155550100@127.0.0.1:${sink.port};maddr=127.0.0.1`
    await expect(ua.placeCall({ target, from: { user: '+14155550111' }, sdp: SDP })).rejects.toThrow('must not carry a maddr parameter')
    await expect(ua.register({ registrar: `sip:127.0.0.1:${sink.port};maddr=127.0.0.1`, user: 'u', expiresSec: 60 })).rejects.toBeInstanceOf(TargetRefusedError)
    await expect(ua.register({ registrar: 'sip:169.254.169.254', user: 'u', expiresSec: 60 })).rejects.toBeInstanceOf(TargetRefusedError)
    // a loopback trunk by name is dialled, once resolved, at the address that was checked
    lookups.length = 0
    const ok = await ua.placeCall({ target: `sip:+14155550100@trunk.example.test:${sink.port}`, from: { user: '+14155550111' }, sdp: SDP })
    await until(() => sink.received.length > 0)
    expect(new Set(sink.received)).toEqual(new Set([`INVITE sip:+14155550100@trunk.example.test:${sink.port} SIP/2.0`]))
    expect(lookups).toEqual(['trunk.example.test'])
    ok.hangup()
  })
})
