// SRTP and SRTCP (RFC 3711, RFC 7714) for calls keyed by SDES (RFC 4568): one context per
// direction, made from a crypto suite and an inline key.
export { SrtpInbound, SrtpOutbound, type SrtpInboundOptions, type SrtpRefusal } from './context.ts'
export { decodeInlineKey, generateInlineKey, isSrtpSuite, SRTP_SUITES, SrtpKeyError, type SrtpSuite, type SuiteParams } from './keys.ts'
export { DEFAULT_REPLAY_WINDOW } from './replay.ts'
