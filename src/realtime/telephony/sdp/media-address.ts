// Where the peer's SDP tells us to send RTP and RTCP. The c= addresses follow the trunk-address
// policy of src/net (a PBX on this host or LAN is normal, so loopback and private addresses pass;
// link-local, cloud metadata, multicast, unspecified and reserved ones do not), else a caller
// on a trusted trunk could aim our media at 169.254.169.254 or any host the appliance reaches.
import { isIP } from 'node:net'
import type { SessionDescription } from 'sdp-transform'
import { sipAddressProblem } from '../../../platform/net/index.ts'

/** RFC 2543 hold (RFC 3264 section 8.4): the peer wants no media; nothing is sent to it. */
export const HOLD_ADDRESS = '0.0.0.0'

/** The bare address of a c= line: `224.2.1.1/127/3` gives `224.2.1.1`. */
const bare = (ip: unknown) => String(ip ?? '').split('/')[0]!.trim()

/**
 * Why RTP must not go where this SDP points, looking at the session-level c= and every
 * media-level c= (a rejected stream's too); undefined when every one is allowed. Host names are
 * refused too: we would have to resolve them, and the answer could be any address.
 */
export function mediaAddressProblem(session: SessionDescription): string | undefined {
  const lines = [session.connection, ...(session.media ?? []).map((m) => m.connection)]
  for (const c of lines) {
    if (!c) continue
    const ip = bare(c.ip)
    if (ip === HOLD_ADDRESS) continue
    if (!isIP(ip)) return `the media address ${JSON.stringify(ip.slice(0, 64))} is not an IP address`
    const problem = sipAddressProblem(ip)
    if (problem) return `the media address ${problem}`
  }
  return undefined
}
