// SRTP and SRTCP (RFC 3711, RFC 7714) for calls keyed by SDES (RFC 4568): one context per
// direction, made from a crypto suite and an inline key, and the a=crypto attributes that carry them.
export { defaultSrtpCrypto, describeSrtpCrypto, SrtpInbound, SrtpOutbound, type SrtpContextOptions, type SrtpInboundOptions, type SrtpRefusal } from './context.ts'
export type { SrtpCrypto } from './transform.ts'
export { decodeInlineKey, generateInlineKey, isSrtpSuite, SRTP_SUITES, SrtpKeyError, type SrtpSuite, type SuiteParams } from './keys.ts'
export { DEFAULT_REPLAY_WINDOW } from './replay.ts'
export { formatSdesCrypto, parseSdesCrypto, parseSdesKeyParams, unusableSdesReason, type SdesCrypto, type SdesCryptoFormat, type Mki, SdesKey } from './sdes.ts'
