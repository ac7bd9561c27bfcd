// Browser calls: the appliance's WebRTC peer (ICE host candidates, DTLS-SRTP, Opus) whose audio
// joins the call path as a MediaLink. See docs/webrtc.md.
export { WebPeer, WebRtcOfferError, type PeerState, type TrickleCandidate } from './peer.ts'
export { admitsRemote, parseHostAddresses, parseIceServers, type IceServer, type WebRtcOptions } from './options.ts'
