// A browser stand-in's werift peer on 127.0.0.1 with one sendrecv audio track, and its offer: for
// the web-call tests, the test client and the bench's web callers.
import { MediaStreamTrack, RTCPeerConnection } from '../../src/realtime/webrtc/werift.ts'
import { reportSocketErrors } from '../../src/realtime/webrtc/sockets.ts'

export function loopbackPeer() {
  const pc = new RTCPeerConnection({ iceUseIpv4: false, iceUseIpv6: false, iceAdditionalHostAddresses: ['127.0.0.1'] })
  const track = new MediaStreamTrack({ kind: 'audio' })
  const transceiver = pc.addTransceiver(track, { direction: 'sendrecv' })
  return { pc, track, transceiver }
}

/** The peer's offer once every candidate is gathered (no trickle needed). */
export async function gatheredOffer(pc: RTCPeerConnection): Promise<string> {
  await pc.setLocalDescription(await pc.createOffer())
  while (pc.iceGatheringState !== 'complete') await new Promise((r) => pc.iceGatheringStateChange.subscribe(r))
  // the appliance's end closing first can bounce an ICMP back, which Bun emits as an 'error'
  reportSocketErrors(pc, () => {})
  return pc.localDescription!.sdp
}
