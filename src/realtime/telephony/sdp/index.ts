export {
  answerOffer,
  acceptAnswer,
  createMediaOffer,
  createOffer,
  fromMediaWire,
  offeredAddressProblem,
  SdpError,
  toMediaWire,
  type LocalMediaOptions,
  type MediaOffer,
  type NegotiatedMedia,
  type NegotiatedMediaWire,
} from './offer-answer.ts'
export { CODEC_DEFAULTS, parseCodecList, ptimeAllowed, TELEPHONE_EVENT_PT, type CodecName, type CodecSpec, type Direction } from './codecs.ts'
export { DEFAULT_SRTP_SUITES, NegotiatedSrtp, OfferedSrtp, type MediaEncryption, type SrtpWire } from './srtp.ts'
export { rekeyReoffer, type RekeyResult } from './rekey.ts'
