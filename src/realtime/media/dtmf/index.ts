export {
  DtmfReceiver,
  dtmfPackets,
  parseTelephoneEvent,
  serializeTelephoneEvent,
  DTMF_DIGITS,
  type DtmfEvent,
  type DtmfSendPacket,
  type TelephoneEvent,
} from './rfc4733.ts'
export { goertzelCoefficients, goertzelPower, InbandDtmfDetector, isDtmfDigit } from './goertzel.ts'
