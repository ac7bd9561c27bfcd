// Browser calls: the appliance's WebRTC peer (ICE host candidates, DTLS-SRTP, Opus) whose audio
// joins the call path as a MediaLink. See docs/webrtc.md.
import type { WebPeer } from './peer.ts'
import type { WebRtcOptions } from './options.ts'

export type { PeerState, TrickleCandidate, WebPeer } from './peer.ts'
export { admitsRemote, CONNECT_TIMEOUT, parseHostAddresses, parseIceServers, WebRtcOfferError, type IceServer, type WebRtcOptions } from './options.ts'

/**
 * Answers a browser's offer. werift (about 130 ms and 40 MB to load) is loaded with the first
 * web call of a thread, not by every call worker and appliance that never takes one.
 */
export async function answerWebOffer(offerSdp: string, options: WebRtcOptions): Promise<WebPeer> {
  const { WebPeer } = await import('./peer.ts')
  return WebPeer.answer(offerSdp, options)
}
