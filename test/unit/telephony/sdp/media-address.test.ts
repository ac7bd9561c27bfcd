// The peer's c= addresses follow the trunk-address policy: RTP never goes to a link-local,
// metadata, multicast, unspecified (except the c=0.0.0.0 hold), reserved or named address
// (issue 24, finding 8), while the loopback and private addresses of a PBX nearby still work.
import { describe, expect, test } from 'bun:test'
import { acceptAnswer, answerOffer, offeredAddressProblem, SdpError } from '../../../../src/realtime/telephony/sdp/index.ts'

const sdp = (session: string, media = '') =>
  ['v=0', `o=- 1 1 IN IP4 ${session || '127.0.0.1'}`, 's=-', ...(session ? [`c=IN IP4 ${session}`] : []), 't=0 0',
    'm=audio 30000 RTP/AVP 0', ...(media ? [`c=${media}`] : []), 'a=rtpmap:0 PCMU/8000', ''].join('\r\n')

const local = { address: '127.0.0.1', port: 40000 }

function refusal(f: () => unknown): SdpError {
  try {
    f()
  } catch (err) {
    if (err instanceof SdpError) return err
    throw err
  }
  throw new Error('accepted')
}

describe('media addresses the appliance refuses to send RTP to', () => {
  test.each([
    ['the cloud metadata address (the probe)', sdp('169.254.169.254'), 'a metadata address'],
    ['a link-local address', sdp('169.254.10.1'), 'a link-local address'],
    ['a multicast group with a TTL', sdp('224.2.1.1/127'), 'a multicast address'],
    ['a reserved address', sdp('240.0.0.1'), 'a reserved address'],
    ['the broadcast address', sdp('255.255.255.255'), 'a reserved address'],
    ['a media-level c= under a good session-level one', sdp('127.0.0.1', 'IN IP4 169.254.169.254'), 'a metadata address'],
    ['an IPv6 link-local address', sdp('', 'IN IP6 fe80::1'), 'a link-local address'],
    ['IPv4-mapped metadata in IPv6', sdp('', 'IN IP6 ::ffff:169.254.169.254'), 'a metadata address'],
    ['the IPv6 unspecified address', sdp('', 'IN IP6 ::'), 'an unspecified address'],
    ['a host name (it could resolve anywhere)', sdp('metadata.google.internal'), 'is not an IP address'],
  ])('an offer with %s is answered 488', (_, offer, reason) => {
    const err = refusal(() => answerOffer(offer, local))
    expect(err.status).toBe(488)
    expect(err.message).toContain(reason)
    expect(offeredAddressProblem(offer)).toContain(reason)
  })

  test('an answer to our offer that points at the metadata address is refused (488)', () => {
    const err = refusal(() => acceptAnswer(sdp('169.254.169.254'), local))
    expect(err.status).toBe(488)
    expect(err.message).toContain('169.254.169.254, a metadata address')
  })
})

describe('media addresses that stay allowed, as for trunks', () => {
  test.each([
    ['loopback (a PBX on this host)', '127.0.0.1'],
    ['another loopback address', '127.0.0.2'],
    ['a private LAN address', '10.1.2.3'],
    ['a carrier-grade NAT address', '100.64.0.9'],
    ['a public address', '8.8.8.8'],
  ])('%s is accepted in offers and answers', (_, ip) => {
    expect(answerOffer(sdp(ip), local).media.remoteAddress).toBe(ip)
    expect(acceptAnswer(sdp(ip), local).remoteAddress).toBe(ip)
    expect(offeredAddressProblem(sdp(ip))).toBeUndefined()
  })

  test('c=0.0.0.0 is the RFC 2543 hold, not a destination: accepted and flagged as hold', () => {
    expect(answerOffer(sdp('0.0.0.0'), local).media.remoteHold).toBe(true)
    expect(offeredAddressProblem(sdp('0.0.0.0'))).toBeUndefined()
  })
})
