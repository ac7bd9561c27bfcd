// A call's media encryption: its number's policy, held to the rule that SDES keys travel only
// over TLS signalling. Pure.
import { parseSipUri } from '../../../platform/net/index.ts'
import type { MediaEncryption } from '../../../realtime/telephony/sdp/index.ts'
import type { NumberRoute } from '../../numbers/index.ts'

export type CallEncryption = { encryption: MediaEncryption } | { refused: string }

/** The transport a request to this URI goes over: its transport parameter, else tls for sips: and udp for sip: (RFC 3263 without NAPTR). */
export function uriTransport(uri: string): string {
  const parsed = parseSipUri(uri)
  if (!parsed) return 'udp'
  const param = parsed.params.transport
  return typeof param === 'string' ? param.toLowerCase() : parsed.scheme === 'sips' ? 'tls' : 'udp'
}

/**
 * `required` over anything but TLS is refused: the SDP carries the SDES keys in the clear, so the
 * path would read them. `optional` is best effort on any transport, as Asterisk's optimistic SRTP.
 */
export function callEncryption(route: Pick<NumberRoute, 'e164' | 'mediaEncryption'>, transport: string): CallEncryption {
  const encryption = route.mediaEncryption
  if (encryption === 'required' && transport.toLowerCase() !== 'tls') {
    return { refused: `${route.e164} requires SRTP (mediaEncryption required) and this call's signalling is ${transport.toLowerCase()}, not tls: SDES keys travel only over TLS` }
  }
  return { encryption }
}
