// What a WebRTC answer agreed, in the shape CallMedia takes for every leg. Pure.
import { parse } from 'sdp-transform'
import type { NegotiatedMedia } from '../telephony/sdp/index.ts'

/** Opus and telephone-event as our answer names them (the browser's payload types). */
export function negotiatedOf(offerSdp: string, answerSdp: string): NegotiatedMedia {
  const audio = parse(answerSdp).media.find((m) => m.type === 'audio')
  const opus = audio?.rtp.find((r) => r.codec.toLowerCase() === 'opus')
  if (!audio || !opus) throw new Error(`no Opus in the answer to an offer of ${parse(offerSdp).media.length} media sections`)
  const event = audio.rtp.find((r) => r.codec.toLowerCase() === 'telephone-event' && r.rate === 8000)
  return {
    // the peer connection owns addresses and ports: these are never used to send
    remoteAddress: '0.0.0.0',
    remotePort: 0,
    remoteRtcpPort: 0,
    rtcpMux: true,
    codec: { name: 'opus', payloadType: opus.payload, clockRate: 48000, channels: 2 },
    ...(event && { telephoneEvent: { payloadType: event.payload, clockRate: 8000 } }),
    ptimeMs: 20,
    direction: 'sendrecv',
    remoteHold: false,
  }
}
