export { parseRtp, serializeRtp, rtpLength, looksLikeRtcp, RtpParseError, type RtpPacket, type RtpHeaderExtension } from './packet.ts'
export {
  parseRtcp,
  serializeRtcp,
  RTCP_BYE,
  RTCP_RR,
  RTCP_SDES,
  RTCP_SR,
  SDES_CNAME,
  type RtcpPacket,
  type ReportBlock,
  type SenderReport,
  type ReceiverReport,
  type SourceDescription,
  type Goodbye,
} from './rtcp.ts'
export { ReceiveStats, roundTripMs, ntpFromUnixMs, ntpMiddle32 } from './stats.ts'
export { RtpPortPool, PortPoolExhaustedError, type BoundPorts, type DatagramHandler, type UdpSocket } from './port-pool.ts'
export { RtpSession, rtcpReportDelay, type RemoteEndpoint, type RtpSessionOptions, type RtpSessionStats, type RtpSrtpKeys, type RtpSrtpStats } from './session.ts'
