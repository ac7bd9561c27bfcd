// A call's media encryption: its number's policy, held to the rule that SDES keys travel only
// over TLS signalling. Pure.
import type { MediaEncryption } from '../../../realtime/telephony/sdp/index.ts'
import type { NumberRoute } from '../../numbers/index.ts'

export type CallEncryption = { encryption: MediaEncryption } | { refused: string }

/**
 * `required` over anything but TLS is refused: the SDP carries the SDES keys in the clear, so the
 * path would read them. `optional` is best effort on any transport, as Asterisk's optimistic SRTP.
 */
export function callEncryption(route: Pick<NumberRoute, 'e164' | 'mediaEncryption'>, transport: string | undefined): CallEncryption {
  const encryption = route.mediaEncryption
  const over = transport?.toLowerCase() ?? 'udp'
  if (encryption === 'required' && over !== 'tls') {
    return { refused: `${route.e164} requires SRTP (mediaEncryption required) and this call's signalling is ${over}, not tls: SDES keys travel only over TLS` }
  }
  return { encryption }
}
