// A re-offer (re-INVITE or UPDATE) inside a call whose media is already negotiated: the SIP layer
// answers it with our SDP at the new direction; this keeps that answer's SDES keys true to the
// call. RFC 4568 section 6.1: a re-offer may carry new keys (a PBX re-keys on hold and resume),
// the suite the answerer keeps, or another suite from the same list. Pure.
import * as sdpTransform from 'sdp-transform'
import { generateInlineKey, type SrtpSuite } from '../../srtp/index.ts'
import { SdpError } from './types.ts'
import { chooseOfferCrypto, cryptoAttribute, cryptoLinesByMedia, isSecureProfile, NegotiatedSrtp } from './srtp.ts'

export interface RekeyResult {
  /** Our answer: `answer` as given, or with its a=crypto line (and profile) following the re-offer. */
  sdp: string
  /** The call's SRTP after the re-offer; the same object when nothing changed. */
  srtp: NegotiatedSrtp | undefined
}

/**
 * The keys after a re-offer. A plain call stays plain: crypto lines on RTP/AVP are ignored, and an
 * RTP/SAVP re-offer is refused (SdpError 488), as switching a live call to SRTP is not supported.
 * An SRTP call stays SRTP: a plain re-offer is refused (488, the call keeps its keys); a line we
 * can use becomes the receive key, and our send key stays unless the suite changed (a new send key
 * would restart the peer's rollover counter mid-stream, RFC 3711 section 3.3.1).
 */
export function rekeyReoffer(offer: string, answer: string, current: NegotiatedSrtp | undefined, suites: readonly SrtpSuite[]): RekeyResult {
  let session: sdpTransform.SessionDescription
  try {
    session = sdpTransform.parse(offer)
  } catch {
    throw new SdpError(400, 'unparsable SDP re-offer')
  }
  const index = session.media.findIndex((m) => m.type === 'audio' && m.port > 0)
  const m = index >= 0 ? session.media[index] : undefined
  // a re-offer that holds with port 0 or drops audio keeps the keys it had
  if (!m) return { sdp: answer, srtp: current }
  if (!current) {
    if (isSecureProfile(m.protocol)) throw new SdpError(488, `the re-offer is ${m.protocol} (SRTP) and this call's media is plain RTP`)
    return { sdp: answer, srtp: undefined }
  }
  const choice = chooseOfferCrypto(m.protocol, cryptoLinesByMedia(offer)[index] ?? [], 'required', suites)
  if (choice.kind !== 'srtp') {
    const reason = choice.kind === 'refuse' ? choice.reason : 'the re-offer is plain RTP'
    throw new SdpError(488, `${reason}; this call's media is SRTP and keeps its keys`)
  }
  const { tag, suite, keys } = choice.crypto
  const receiveKey = keys[0]!.inline
  const ours = sdpTransform.parse(answer)
  const audio = ours.media.find((x) => x.type === 'audio' && x.port > 0)
  if (!audio) return { sdp: answer, srtp: current }
  const line = audio.crypto?.[0]
  const sameLine = line?.id === tag && line.suite === suite && audio.protocol === m.protocol
  if (sameLine && suite === current.suite && receiveKey === current.receiveKey) return { sdp: answer, srtp: current }
  const sendKey = suite === current.suite ? current.sendKey : generateInlineKey(suite)
  audio.protocol = m.protocol
  audio.crypto = [cryptoAttribute(tag, suite, sendKey)]
  return { sdp: sdpTransform.write(ours), srtp: new NegotiatedSrtp(suite, sendKey, receiveKey) }
}
