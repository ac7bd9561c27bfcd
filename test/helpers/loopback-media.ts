// What an answered PCMU call with a peer on 127.0.0.1 negotiates (rtcp-mux, telephone-event 101,
// 20 ms packets): the media of the test calls and of the media benchmarks.
import { CODEC_DEFAULTS, type NegotiatedMedia } from '../../src/realtime/telephony/sdp/index.ts'

export function loopbackPcmu(peerPort: number, over: Partial<NegotiatedMedia> = {}): NegotiatedMedia {
  return {
    remoteAddress: '127.0.0.1',
    remotePort: peerPort,
    remoteRtcpPort: peerPort,
    rtcpMux: true,
    codec: CODEC_DEFAULTS.PCMU,
    telephoneEvent: { payloadType: 101, clockRate: 8000 },
    ptimeMs: 20,
    direction: 'sendrecv',
    remoteHold: false,
    ...over,
  }
}
