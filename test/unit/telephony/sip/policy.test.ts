import { describe, expect, test } from 'bun:test'
import { outcomeOf, sameNumber, sdpDirection, withDirection, type Direction, type InboundDecision } from '../../../../src/realtime/telephony/sip/index.ts'
import { InMemoryNumberDirectory } from '../../../helpers/number-directory.ts'
import { RateLimiter } from '../../../../src/realtime/telephony/sip/rate-limit.ts'

const udp = (address: string) => ({ transport: 'udp' as const, address, port: 5060 })

describe('number directory', () => {
  const dir = new InMemoryNumberDirectory([
    { number: '+15551230000', trunkSources: ['10.0.0.1'], context: 'ws1' },
    { number: '+15559990000', trunkSources: ['10.0.0.2'] },
  ])
  test.each<[string, string[], string, InboundDecision]>([
    ['our number from its trunk', ['+15551230000'], '10.0.0.1', { accept: true, number: '+15551230000', context: 'ws1' }],
    ['the To user when the Request-URI user is not ours', ['trunk-route', '15551230000'], '10.0.0.1', { accept: true, number: '+15551230000', context: 'ws1' }],
    ['an unknown number from a trunk', ['+15550000000'], '10.0.0.1', { accept: false, status: 404 }],
    ['a number of ours from another trunk (same answer as unknown)', ['+15559990000'], '10.0.0.1', { accept: false, status: 404 }],
    ['anything from a source that is no trunk', ['+15551230000'], '192.0.2.7', { accept: false, status: 403 }],
  ])('%s', (_, users, source, want) => {
    expect(dir.resolveInbound({ users, source: udp(source) })).toEqual(want)
  })

  test.each([
    ['+1 (555) 123-0000', '15551230000', true],
    ['alice', 'alice', true],
    ['alice', 'Alice', false],
    ['1555', '15550', false],
  ])('sameNumber(%p, %p) is %p', (a, b, want) => {
    expect(sameNumber(a, b)).toBe(want)
  })
})

describe('outbound outcomes', () => {
  test.each([
    [486, 'busy'], [600, 'busy'], [480, 'no_answer'], [408, 'no_answer'], [404, 'not_found'], [603, 'declined'],
    [500, 'failed'], [503, 'failed'], [403, 'failed'],
  ])('%i ends the call as %s', (status, reason) => {
    expect(outcomeOf(status)).toEqual({ reason: reason as never, status })
  })
})

describe('refusal rate limit', () => {
  test('a source is ignored after its burst of refusals and readmitted as the bucket refills', () => {
    let now = 0
    const rl = new RateLimiter(2, 3, () => now)
    for (let i = 0; i < 3; i++) {
      expect(rl.blocked('a')).toBe(false)
      rl.hit('a')
    }
    expect(rl.blocked('a')).toBe(true)
    expect(rl.blocked('b')).toBe(false)
    now = 499
    expect(rl.blocked('a')).toBe(true)
    now = 500
    expect(rl.blocked('a')).toBe(false)
  })

  test('a limit of zero never blocks', () => {
    const rl = new RateLimiter(0, 0)
    rl.hit('a')
    expect(rl.blocked('a')).toBe(false)
  })
})

describe('hold through the SDP direction', () => {
  const sdp = (extra: string, ip = '127.0.0.1') => `v=0\r\no=- 1 1 IN IP4 ${ip}\r\ns=-\r\nc=IN IP4 ${ip}\r\nt=0 0\r\nm=audio 4000 RTP/AVP 0\r\n${extra}`
  test.each<[string, string, Direction]>([
    ['no attribute', sdp(''), 'sendrecv'],
    ['a=sendonly', sdp('a=sendonly\r\n'), 'sendonly'],
    ['a=inactive', sdp('a=inactive\r\n'), 'inactive'],
    ['c=0.0.0.0 (RFC 2543 hold)', sdp('', '0.0.0.0'), 'sendonly'],
  ])('%s reads as %s', (_, s, want) => {
    expect(sdpDirection(s)).toBe(want)
  })

  test('our answer takes the new direction and a new origin version', () => {
    const out = withDirection(sdp('a=sendrecv\r\n'), 'recvonly')
    expect(out).toContain('a=recvonly')
    expect(out).not.toContain('a=sendrecv')
    expect(out).toContain('o=- 1 2 IN IP4')
  })
})
