export { answerOffer, acceptAnswer, createOffer, offeredAddressProblem, SdpError, type LocalMediaOptions, type NegotiatedMedia } from './offer-answer.ts'
export { CODEC_DEFAULTS, parseCodecList, ptimeAllowed, TELEPHONE_EVENT_PT, type CodecName, type CodecSpec, type Direction } from './codecs.ts'
