// werift, with what it needs loaded first: its certificate code (@peculiar/x509, tsyringe) needs
// the Reflect metadata polyfill before it loads. Every use of werift imports it from here.
import './reflect-first.ts'

export { MediaStreamTrack, RTCPeerConnection, RTCRtpCodecParameters, RtpHeader, RtpPacket, type RTCRtpTransceiver } from 'werift'
