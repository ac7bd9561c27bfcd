import { describe, expect, test } from 'bun:test'
import { parseSdesCrypto } from '../../../src/realtime/srtp/index.ts'
import { answerOffer, DEFAULT_SRTP_SUITES, rekeyReoffer } from '../../../src/realtime/telephony/sdp/index.ts'
import { sdpRefusal } from '../../helpers/sdp-refusal.ts'

const crlf = (s: string) => s.trim().split('\n').map((l) => l.trim()).filter(Boolean).join('\r\n') + '\r\n'
const KEY_A = Buffer.alloc(30, 7).toString('base64')
const KEY_B = Buffer.alloc(30, 9).toString('base64')
const KEY_GCM = Buffer.alloc(28, 5).toString('base64')

const offerWith = (profile: string, crypto: string[] = [], version = 200) =>
  crlf(`
  v=0
  o=pbx 100 ${version} IN IP4 192.0.2.10
  s=-
  c=IN IP4 192.0.2.10
  t=0 0
  m=audio 30000 ${profile} 0 101
  a=rtpmap:0 PCMU/8000
  a=rtpmap:101 telephone-event/8000
  ${crypto.map((c) => `a=crypto:${c}`).join('\n')}
  a=sendrecv`)

const local = { address: '198.51.100.5', port: 40000, sessionId: 1, sessionVersion: 1 }
const cryptoOf = (sdp: string) => sdp.split('\r\n').filter((l) => l.startsWith('a=crypto:')).map((l) => parseSdesCrypto(l)!)

/** A call answered under `required` from an RTP/SAVP offer keyed with KEY_A. */
function srtpCall() {
  const first = answerOffer(offerWith('RTP/SAVP', [`1 AES_CM_128_HMAC_SHA1_80 inline:${KEY_A}`]), { ...local, encryption: 'required' })
  return { answer: first.sdp, srtp: first.media.srtp! }
}

describe('a re-offer inside an SRTP call', () => {
  test('the same key again (a re-INVITE for hold) leaves the answer and the keys as they were', () => {
    const call = srtpCall()
    const out = rekeyReoffer(offerWith('RTP/SAVP', [`1 AES_CM_128_HMAC_SHA1_80 inline:${KEY_A}`], 201), call.answer, call.srtp, DEFAULT_SRTP_SUITES)
    expect(out.srtp).toBe(call.srtp)
    expect(out.sdp).toBe(call.answer)
  })

  test('a new key from the peer becomes the receive key; our send key and answer line stay', () => {
    const call = srtpCall()
    const out = rekeyReoffer(offerWith('RTP/SAVP', [`1 AES_CM_128_HMAC_SHA1_80 inline:${KEY_B}`], 201), call.answer, call.srtp, DEFAULT_SRTP_SUITES)
    expect(out.srtp).not.toBe(call.srtp)
    expect(out.srtp!.receiveKey).toBe(KEY_B)
    expect(out.srtp!.sendKey).toBe(call.srtp.sendKey)
    expect(cryptoOf(out.sdp)).toEqual(cryptoOf(call.answer))
  })

  test('a re-offer that moves to another suite gets a fresh key of that suite under the offered tag', () => {
    const call = srtpCall()
    const out = rekeyReoffer(offerWith('RTP/SAVP', [`3 AEAD_AES_128_GCM inline:${KEY_GCM}`], 201), call.answer, call.srtp, DEFAULT_SRTP_SUITES)
    expect(out.srtp!.suite).toBe('AEAD_AES_128_GCM')
    expect(out.srtp!.receiveKey).toBe(KEY_GCM)
    expect(out.srtp!.sendKey).not.toBe(call.srtp.sendKey)
    const [line] = cryptoOf(out.sdp)
    expect([line!.tag, line!.suite, line!.keys[0]!.inline]).toEqual([3, 'AEAD_AES_128_GCM', out.srtp!.sendKey])
  })

  test('a plain re-offer is refused with 488 and the reason; the call keeps its keys', () => {
    const call = srtpCall()
    const err = sdpRefusal(() => rekeyReoffer(offerWith('RTP/AVP'), call.answer, call.srtp, DEFAULT_SRTP_SUITES))
    expect(err.status).toBe(488)
    expect(err.message).toContain('keeps its keys')
  })

  test('a re-offer whose only suite is not enabled is refused, naming the suite', () => {
    const call = srtpCall()
    const err = sdpRefusal(() => rekeyReoffer(offerWith('RTP/SAVP', [`1 AES_CM_128_HMAC_SHA1_32 inline:${KEY_B}`], 201), call.answer, call.srtp, ['AES_CM_128_HMAC_SHA1_80']))
    expect(err.message).toContain('AES_CM_128_HMAC_SHA1_32 is not enabled')
  })

  test('a re-offer without an audio stream (port 0) keeps the keys', () => {
    const call = srtpCall()
    const out = rekeyReoffer(offerWith('RTP/SAVP').replace('m=audio 30000', 'm=audio 0'), call.answer, call.srtp, DEFAULT_SRTP_SUITES)
    expect(out.srtp).toBe(call.srtp)
  })
})

describe('a re-offer inside a plain call', () => {
  const plain = answerOffer(offerWith('RTP/AVP'), local)

  test('crypto lines on RTP/AVP are ignored: the call stays plain', () => {
    const out = rekeyReoffer(offerWith('RTP/AVP', [`1 AES_CM_128_HMAC_SHA1_80 inline:${KEY_A}`]), plain.sdp, undefined, DEFAULT_SRTP_SUITES)
    expect(out).toEqual({ sdp: plain.sdp, srtp: undefined })
  })

  test('an RTP/SAVP re-offer is refused with 488: a live plain call does not switch to SRTP', () => {
    const err = sdpRefusal(() => rekeyReoffer(offerWith('RTP/SAVP', [`1 AES_CM_128_HMAC_SHA1_80 inline:${KEY_A}`]), plain.sdp, undefined, DEFAULT_SRTP_SUITES))
    expect(err.status).toBe(488)
  })
})
