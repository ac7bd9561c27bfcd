import { describe, expect, test } from 'bun:test'
import { inspect } from 'node:util'
import * as sdpTransform from 'sdp-transform'
import { decodeInlineKey, parseSdesCrypto, SRTP_SUITES } from '../../../src/realtime/srtp/index.ts'
import {
  acceptAnswer,
  answerOffer,
  createMediaOffer,
  createOffer,
  DEFAULT_SRTP_SUITES,
  fromMediaWire,
  NegotiatedSrtp,
  toMediaWire,
  type LocalMediaOptions,
  type MediaEncryption,
} from '../../../src/realtime/telephony/sdp/index.ts'
import { sdpRefusal } from '../../helpers/sdp-refusal.ts'

const crlf = (s: string) => s.trim().split('\n').map((l) => l.trim()).join('\r\n') + '\r\n'

// Base64 keys of the right lengths: 30 bytes for AES-CM, 28 for AES-GCM.
const KEY_CM = Buffer.alloc(30, 7).toString('base64')
const KEY_CM2 = Buffer.alloc(30, 9).toString('base64')
const KEY_GCM = Buffer.alloc(28, 5).toString('base64')

/** A PBX offer on `profile` with these a=crypto values (after `a=crypto:`). */
const offerWith = (profile: string, crypto: string[] = []) =>
  crlf(`
  v=0
  o=asterisk 100 200 IN IP4 192.0.2.10
  s=Asterisk
  c=IN IP4 192.0.2.10
  t=0 0
  m=audio 30000 ${profile} 0 8 101
  a=rtpmap:0 PCMU/8000
  a=rtpmap:8 PCMA/8000
  a=rtpmap:101 telephone-event/8000
  a=fmtp:101 0-16
  a=ptime:20
  ${crypto.map((c) => `a=crypto:${c}`).join('\n')}
  a=sendrecv`).replace(/\r\n\r\n/g, '\r\n')

const local = { address: '198.51.100.5', port: 40000, sessionId: 1, sessionVersion: 1 }
const peer = { address: '192.0.2.99', port: 7000, sessionId: 2, sessionVersion: 1 }
const withPolicy = (encryption: MediaEncryption, over: Partial<LocalMediaOptions> = {}): LocalMediaOptions => ({ ...local, encryption, ...over })

const audioOf = (sdp: string) => sdpTransform.parse(sdp).media[0]!
const cryptoOf = (sdp: string) => sdp.split('\r\n').filter((l) => l.startsWith('a=crypto:')).map((l) => parseSdesCrypto(l)!)

describe('SDES offers per media encryption policy', () => {
  test("'required' offers RTP/SAVP with one a=crypto line per suite, tags 1..n, each a fresh key of its suite", () => {
    const offer = createMediaOffer(withPolicy('required'))
    expect(audioOf(offer.sdp).protocol).toBe('RTP/SAVP')
    const lines = cryptoOf(offer.sdp)
    expect(lines.map((c) => [c.tag, c.suite])).toEqual([
      [1, 'AES_CM_128_HMAC_SHA1_80'],
      [2, 'AES_CM_128_HMAC_SHA1_32'],
      [3, 'AEAD_AES_128_GCM'],
    ])
    for (const c of lines) {
      expect(c.keys).toHaveLength(1)
      expect(c.keys[0]!.mki).toBeUndefined()
      const master = decodeInlineKey(c.suite as keyof typeof SRTP_SUITES, c.keys[0]!.inline)
      expect(master.salt.length).toBe(SRTP_SUITES[c.suite as keyof typeof SRTP_SUITES].saltBytes)
      expect(offer.srtp!.keyFor(c.tag, c.suite)).toBe(c.keys[0]!.inline)
    }
    expect(new Set(lines.map((c) => c.keys[0]!.inline)).size).toBe(3)
    expect(offer.srtp!.lines).toEqual(lines.map((c) => ({ tag: c.tag, suite: c.suite })) as never)
  })

  test("'optional' offers the same crypto lines on RTP/AVP (best-effort SDES)", () => {
    const offer = createMediaOffer(withPolicy('optional'))
    expect(audioOf(offer.sdp).protocol).toBe('RTP/AVP')
    expect(cryptoOf(offer.sdp).map((c) => c.suite)).toEqual([...DEFAULT_SRTP_SUITES])
  })

  test('the suites offered and their order can be chosen', () => {
    const offer = createMediaOffer(withPolicy('required', { srtpSuites: ['AEAD_AES_128_GCM', 'AES_CM_128_HMAC_SHA1_80'] }))
    expect(cryptoOf(offer.sdp).map((c) => [c.tag, c.suite])).toEqual([
      [1, 'AEAD_AES_128_GCM'],
      [2, 'AES_CM_128_HMAC_SHA1_80'],
    ])
    expect(() => createMediaOffer(withPolicy('required', { srtpSuites: [] }))).toThrow(RangeError)
  })

  test("'none' (and no policy) offers exactly what createOffer always did; createOffer refuses to drop SRTP keys", () => {
    const plain = createMediaOffer({ ...local })
    expect(plain.srtp).toBeUndefined()
    expect(plain.sdp).toBe(createOffer(local))
    expect(createMediaOffer(withPolicy('none')).sdp).toBe(createOffer(local))
    expect(plain.sdp).not.toContain('a=crypto')
    expect(audioOf(plain.sdp).protocol).toBe('RTP/AVP')
    expect(() => createOffer(withPolicy('required'))).toThrow(/createMediaOffer/)
    expect(() => createOffer(withPolicy('optional'))).toThrow(/createMediaOffer/)
  })

  test('every offer has fresh keys (a re-offer re-keys)', () => {
    const a = createMediaOffer(withPolicy('required'))
    const b = createMediaOffer(withPolicy('required'))
    expect(cryptoOf(a.sdp)[0]!.keys[0]!.inline).not.toBe(cryptoOf(b.sdp)[0]!.keys[0]!.inline)
  })
})

describe('SDES answers per media encryption policy', () => {
  const savp = offerWith('RTP/SAVP', [`1 AES_CM_128_HMAC_SHA1_80 inline:${KEY_CM}`, `2 AEAD_AES_128_GCM inline:${KEY_GCM}`])

  test('an RTP/SAVP offer is answered on RTP/SAVP with the first usable line: its tag and suite, and our own fresh key', () => {
    for (const policy of ['optional', 'required'] as const) {
      const { sdp, media } = answerOffer(savp, withPolicy(policy))
      expect(audioOf(sdp).protocol).toBe('RTP/SAVP')
      const lines = cryptoOf(sdp)
      expect(lines).toHaveLength(1)
      expect(lines[0]).toMatchObject({ tag: 1, suite: 'AES_CM_128_HMAC_SHA1_80', sessionParams: [] })
      const ours = lines[0]!.keys[0]!.inline
      expect(ours).not.toBe(KEY_CM)
      expect(media.srtp).toBeInstanceOf(NegotiatedSrtp)
      expect(media.srtp!.suite).toBe('AES_CM_128_HMAC_SHA1_80')
      expect(media.srtp!.sendKey).toBe(ours)
      expect(media.srtp!.receiveKey).toBe(KEY_CM)
      expect(media).toMatchObject({ remoteAddress: '192.0.2.10', remotePort: 30000, codec: { name: 'PCMU' }, telephoneEvent: { payloadType: 101 } })
    }
  })

  test('RTP/SAVPF offers are answered on RTP/SAVPF', () => {
    const { sdp, media } = answerOffer(offerWith('RTP/SAVPF', [`7 AEAD_AES_128_GCM inline:${KEY_GCM}`]), withPolicy('required'))
    expect(audioOf(sdp).protocol).toBe('RTP/SAVPF')
    expect(cryptoOf(sdp)[0]).toMatchObject({ tag: 7, suite: 'AEAD_AES_128_GCM' })
    expect(decodeInlineKey('AEAD_AES_128_GCM', media.srtp!.sendKey).salt.length).toBe(12)
    expect(media.srtp!.receiveKey).toBe(KEY_GCM)
  })

  test('lines we cannot use are passed over: unknown or disabled suites, MKIs, several keys, other session parameters, bad keys', () => {
    const offer = offerWith('RTP/SAVP', [
      `1 AES_256_CM_HMAC_SHA1_80 inline:${KEY_CM}`,
      `2 AES_CM_128_HMAC_SHA1_80 inline:${KEY_CM}|2^20|1:4`,
      `3 AES_CM_128_HMAC_SHA1_80 inline:${KEY_CM};inline:${KEY_CM2}`,
      `4 AES_CM_128_HMAC_SHA1_80 inline:${KEY_CM} UNENCRYPTED_SRTP`,
      `5 AES_CM_128_HMAC_SHA1_80 inline:${KEY_CM} KDR=0 UNENCRYPTED_SRTCP`,
      `6 AES_CM_128_HMAC_SHA1_80 inline:${KEY_GCM}`,
      '7 AES_CM_128_HMAC_SHA1_80 inline:not*base64',
      `8 AEAD_AES_128_GCM inline:${KEY_GCM}`,
      `9 AES_CM_128_HMAC_SHA1_32 inline:${KEY_CM2} KDR=0 WSH=64`,
    ])
    const first = answerOffer(offer, withPolicy('required'))
    expect(first.media.srtp!.suite).toBe('AEAD_AES_128_GCM')
    expect(cryptoOf(first.sdp)[0]!.tag).toBe(8)
    // with GCM not enabled, the next line (a window size hint and a zero KDR are fine)
    const noGcm = answerOffer(offer, withPolicy('required', { srtpSuites: ['AES_CM_128_HMAC_SHA1_80', 'AES_CM_128_HMAC_SHA1_32'] }))
    expect(noGcm.media.srtp!.suite).toBe('AES_CM_128_HMAC_SHA1_32')
    expect(noGcm.media.srtp!.receiveKey).toBe(KEY_CM2)
    const noGcmFirst = offerWith('RTP/SAVP', [`8 AEAD_AES_128_GCM inline:${KEY_GCM}`, `9 AES_CM_128_HMAC_SHA1_80 inline:${KEY_CM}`])
    expect(answerOffer(noGcmFirst, withPolicy('required')).media.srtp!.suite).toBe('AEAD_AES_128_GCM')
    const without = answerOffer(noGcmFirst, withPolicy('required', { srtpSuites: ['AES_CM_128_HMAC_SHA1_80'] }))
    expect(without.media.srtp!.suite).toBe('AES_CM_128_HMAC_SHA1_80')
    expect(cryptoOf(without.sdp)[0]!.tag).toBe(9)
  })

  test("'required' refuses plain offers with 488 and says why", () => {
    const plain = sdpRefusal(() => answerOffer(offerWith('RTP/AVP'), withPolicy('required')))
    expect(plain.status).toBe(488)
    expect(plain.message).toContain('plain RTP')
    expect(plain.message).toContain('requires SRTP')
    const noSuite = sdpRefusal(() => answerOffer(offerWith('RTP/AVP', [`1 AES_256_CM_HMAC_SHA1_80 inline:${KEY_CM}`]), withPolicy('required')))
    expect(noSuite.status).toBe(488)
    expect(noSuite.message).toContain('AES_256_CM_HMAC_SHA1_80 is not supported')
    expect(noSuite.message).toContain('we support AES_CM_128_HMAC_SHA1_80')
    expect(noSuite.message).not.toContain(KEY_CM)
  })

  test("'required' accepts a best-effort RTP/AVP offer that keys SRTP, and answers on RTP/AVP", () => {
    const { sdp, media } = answerOffer(offerWith('RTP/AVP', [`1 AES_CM_128_HMAC_SHA1_80 inline:${KEY_CM}`]), withPolicy('required'))
    expect(audioOf(sdp).protocol).toBe('RTP/AVP')
    expect(cryptoOf(sdp)[0]).toMatchObject({ tag: 1, suite: 'AES_CM_128_HMAC_SHA1_80' })
    expect(media.srtp!.receiveKey).toBe(KEY_CM)
  })

  test('an RTP/SAVP offer without a usable line is refused with 488 under optional and required', () => {
    for (const policy of ['optional', 'required'] as const) {
      const none = sdpRefusal(() => answerOffer(offerWith('RTP/SAVP'), withPolicy(policy)))
      expect(none.status).toBe(488)
      expect(none.message).toContain('no a=crypto line')
      const bad = sdpRefusal(() => answerOffer(offerWith('RTP/SAVP', [`1 F8_128_HMAC_SHA1_80 inline:${KEY_CM}`, 'garbage']), withPolicy(policy)))
      expect(bad.message).toContain('F8_128_HMAC_SHA1_80 is not supported')
      expect(bad.message).toContain('malformed')
    }
  })

  test("'optional' answers plain offers plainly, and best-effort SDES with SRTP", () => {
    const plain = answerOffer(offerWith('RTP/AVP'), withPolicy('optional'))
    expect(plain.media.srtp).toBeUndefined()
    expect(plain.sdp).not.toContain('a=crypto')
    expect(plain.sdp).toBe(answerOffer(offerWith('RTP/AVP'), local).sdp)
    // crypto lines we cannot use on RTP/AVP: plain, as the offerer allows
    const unusable = answerOffer(offerWith('RTP/AVP', [`1 AES_256_CM_HMAC_SHA1_80 inline:${KEY_CM}`]), withPolicy('optional'))
    expect(unusable.media.srtp).toBeUndefined()
    expect(unusable.sdp).not.toContain('a=crypto')
    const keyed = answerOffer(offerWith('RTP/AVP', [`3 AES_CM_128_HMAC_SHA1_80 inline:${KEY_CM}`]), withPolicy('optional'))
    expect(keyed.media.srtp!.receiveKey).toBe(KEY_CM)
    expect(cryptoOf(keyed.sdp)[0]!.tag).toBe(3)
  })

  test("'none' answers crypto lines on RTP/AVP plainly, exactly as before, and refuses RTP/SAVP(F) with 488", () => {
    const offer = offerWith('RTP/AVP', [`1 AES_CM_128_HMAC_SHA1_80 inline:${KEY_CM}`])
    const { sdp, media } = answerOffer(offer, local)
    expect(media.srtp).toBeUndefined()
    expect('srtp' in media).toBe(false)
    expect(sdp).not.toContain('a=crypto')
    expect(sdp).toBe(answerOffer(offerWith('RTP/AVP'), local).sdp)
    for (const profile of ['RTP/SAVP', 'RTP/SAVPF']) {
      const err = sdpRefusal(() => answerOffer(offerWith(profile, [`1 AES_CM_128_HMAC_SHA1_80 inline:${KEY_CM}`]), withPolicy('none')))
      expect(err.status).toBe(488)
      expect(err.message).toContain('media encryption is off')
    }
  })

  test('an RTP/SAVP stream we cannot key is rejected with port 0 while a later plain audio stream is taken under optional', () => {
    const offer = offerWith('RTP/SAVP') + 'm=audio 30004 RTP/AVP 0\r\n'
    const { sdp, media } = answerOffer(offer, withPolicy('optional'))
    expect(sdpTransform.parse(sdp).media.map((m) => [m.protocol, m.port])).toEqual([
      ['RTP/SAVP', 0],
      ['RTP/AVP', 40000],
    ])
    expect(media).toMatchObject({ remotePort: 30004 })
    expect(media.srtp).toBeUndefined()
  })

  test('crypto lines are read per m= section; a session-level one is ignored', () => {
    const offer = offerWith('RTP/SAVP').replace('t=0 0', `t=0 0\r\na=crypto:1 AES_CM_128_HMAC_SHA1_80 inline:${KEY_CM}`)
    expect(sdpRefusal(() => answerOffer(offer, withPolicy('required'))).message).toContain('no a=crypto line')
    const second = offerWith('RTP/SAVP') + `m=audio 30004 RTP/SAVP 0\r\na=crypto:4 AES_CM_128_HMAC_SHA1_80 inline:${KEY_CM2}\r\n`
    const { media } = answerOffer(second, withPolicy('required'))
    expect(media.remotePort).toBe(30004)
    expect(media.srtp!.receiveKey).toBe(KEY_CM2)
  })
})

describe('reading the answer to our SDES offer', () => {
  /** The peer's answer to our offer, choosing `crypto` (after `a=crypto:`) on `profile`: PCMU and PCMA, which we offered. */
  const answerWith = offerWith

  test('the answer names a tag and suite we offered: our key sends, its key receives', () => {
    const opts = withPolicy('required')
    const offer = createMediaOffer(opts)
    const ours = offer.srtp!.keyFor(2, 'AES_CM_128_HMAC_SHA1_32')!
    const media = acceptAnswer(answerWith('RTP/SAVP', [`2 AES_CM_128_HMAC_SHA1_32 inline:${KEY_CM}`]), opts, offer)
    expect(media.srtp!.suite).toBe('AES_CM_128_HMAC_SHA1_32')
    expect(media.srtp!.sendKey).toBe(ours)
    expect(media.srtp!.receiveKey).toBe(KEY_CM)
  })

  test('a tag we did not offer, a suite other than the one offered under that tag, or a bad key is a 488', () => {
    const opts = withPolicy('optional')
    const offer = createMediaOffer(opts)
    const tag = sdpRefusal(() => acceptAnswer(answerWith('RTP/AVP', [`9 AES_CM_128_HMAC_SHA1_80 inline:${KEY_CM}`]), opts, offer))
    expect(tag.status).toBe(488)
    expect(tag.message).toContain('matches no line we offered (1 AES_CM_128_HMAC_SHA1_80, 2 AES_CM_128_HMAC_SHA1_32, 3 AEAD_AES_128_GCM)')
    const suite = sdpRefusal(() => acceptAnswer(answerWith('RTP/AVP', [`1 AEAD_AES_128_GCM inline:${KEY_GCM}`]), opts, offer))
    expect(suite.message).toContain('matches no line we offered')
    const key = sdpRefusal(() => acceptAnswer(answerWith('RTP/AVP', [`3 AEAD_AES_128_GCM inline:${KEY_CM}`]), opts, offer))
    expect(key.message).toContain('decodes to 30 bytes')
    expect(key.message).not.toContain(KEY_CM)
    const mki = sdpRefusal(() => acceptAnswer(answerWith('RTP/AVP', [`1 AES_CM_128_HMAC_SHA1_80 inline:${KEY_CM}|1:4`]), opts, offer))
    expect(mki.message).toContain('MKI')
    const two = sdpRefusal(() => acceptAnswer(answerWith('RTP/AVP', [`1 AES_CM_128_HMAC_SHA1_80 inline:${KEY_CM}`, `2 AES_CM_128_HMAC_SHA1_32 inline:${KEY_CM}`]), opts, offer))
    expect(two.message).toContain('2 a=crypto lines')
    const malformed = sdpRefusal(() => acceptAnswer(answerWith('RTP/AVP', ['1 AES_CM_128_HMAC_SHA1_80 inline:']), opts, offer))
    expect(malformed.message).toContain('malformed')
  })

  test("under 'required' an answer without crypto is a 488; under 'optional' it is plain RTP unless it claims RTP/SAVP", () => {
    const required = withPolicy('required')
    const err = sdpRefusal(() => acceptAnswer(answerWith('RTP/AVP', []), required, createMediaOffer(required)))
    expect(err.status).toBe(488)
    expect(err.message).toContain('requires SRTP')
    const optional = withPolicy('optional')
    const plain = acceptAnswer(answerWith('RTP/AVP', []), optional, createMediaOffer(optional))
    expect(plain.srtp).toBeUndefined()
    expect(plain).toMatchObject({ remotePort: 30000, codec: { name: 'PCMU' } })
    expect(sdpRefusal(() => acceptAnswer(answerWith('RTP/SAVP', []), optional, createMediaOffer(optional))).message).toContain('RTP/SAVP without an a=crypto')
  })

  test("'none' reads answers as before and ignores crypto lines; SRTP policies need the offer's keys", () => {
    const answer = answerWith('RTP/AVP', [`1 AES_CM_128_HMAC_SHA1_80 inline:${KEY_CM}`])
    expect(acceptAnswer(answer, local).srtp).toBeUndefined()
    expect(acceptAnswer(answer, local)).toEqual(acceptAnswer(answerWith('RTP/AVP', []), local))
    expect(() => acceptAnswer(answer, withPolicy('required'))).toThrow(/createMediaOffer/)
    expect(() => acceptAnswer(answer, withPolicy('optional'), createMediaOffer(local))).toThrow(TypeError)
  })
})

describe('SDES offer/answer round trips', () => {
  const cases: [MediaEncryption, MediaEncryption][] = [
    ['required', 'required'],
    ['required', 'optional'],
    ['optional', 'required'],
    ['optional', 'optional'],
  ]
  for (const [ours, theirs] of cases) {
    test(`${ours} offer to a ${theirs} answerer: each side's send key is the other's receive key`, () => {
      const offerer = withPolicy(ours)
      const offer = createMediaOffer(offerer)
      const answered = answerOffer(offer.sdp, { ...peer, encryption: theirs })
      const mine = acceptAnswer(answered.sdp, offerer, offer)
      expect(mine.srtp!.suite).toBe('AES_CM_128_HMAC_SHA1_80')
      expect(answered.media.srtp!.suite).toBe('AES_CM_128_HMAC_SHA1_80')
      expect(mine.srtp!.sendKey).toBe(answered.media.srtp!.receiveKey)
      expect(mine.srtp!.receiveKey).toBe(answered.media.srtp!.sendKey)
      expect(mine.srtp!.sendKey).not.toBe(mine.srtp!.receiveKey)
      expect(audioOf(answered.sdp).protocol).toBe(ours === 'required' ? 'RTP/SAVP' : 'RTP/AVP')
    })
  }

  test('an optional offer to a plain answerer falls back to RTP; a required one is refused by it', () => {
    const offerer = withPolicy('optional')
    const offer = createMediaOffer(offerer)
    const answered = answerOffer(offer.sdp, peer)
    expect(answered.sdp).not.toContain('a=crypto')
    expect(acceptAnswer(answered.sdp, offerer, offer).srtp).toBeUndefined()
    const required = createMediaOffer(withPolicy('required'))
    expect(sdpRefusal(() => answerOffer(required.sdp, peer)).status).toBe(488)
  })

  test('the answerer picks the offerer order among the suites it enables', () => {
    const offerer = withPolicy('required', { srtpSuites: ['AEAD_AES_128_GCM', 'AES_CM_128_HMAC_SHA1_80'] })
    const offer = createMediaOffer(offerer)
    const answered = answerOffer(offer.sdp, { ...peer, encryption: 'required', srtpSuites: ['AES_CM_128_HMAC_SHA1_80'] })
    const mine = acceptAnswer(answered.sdp, offerer, offer)
    expect(mine.srtp!.suite).toBe('AES_CM_128_HMAC_SHA1_80')
    expect(mine.srtp!.sendKey).toBe(offer.srtp!.keyFor(2, 'AES_CM_128_HMAC_SHA1_80')!)
    expect(mine.srtp!.sendKey).toBe(answered.media.srtp!.receiveKey)
  })

  test("a peer's re-offer with new keys gives new SRTP, and our answer a fresh key", () => {
    const opts = withPolicy('required')
    const first = answerOffer(offerWith('RTP/SAVP', [`1 AES_CM_128_HMAC_SHA1_80 inline:${KEY_CM}`]), opts).media.srtp!
    const reoffer = offerWith('RTP/SAVP', [`1 AES_CM_128_HMAC_SHA1_80 inline:${KEY_CM2}`]).replace('a=sendrecv', 'a=sendonly')
    const second = answerOffer(reoffer, opts).media
    expect(second.remoteHold).toBe(true)
    expect(second.srtp!.receiveKey).toBe(KEY_CM2)
    expect(second.srtp!.sendKey).not.toBe(first.sendKey)
  })
})

describe('SRTP keys stay out of logs and survive a thread hop only through the wire form', () => {
  const media = answerOffer(offerWith('RTP/SAVP', [`1 AES_CM_128_HMAC_SHA1_80 inline:${KEY_CM}`]), withPolicy('required')).media
  const sendKey = media.srtp!.sendKey

  test('JSON, util.inspect, Bun.inspect, spreading and Object.entries show the suite, never a key', () => {
    const views = [JSON.stringify(media), JSON.stringify({ media }), inspect(media, { depth: 9, showHidden: true }), Bun.inspect(media), JSON.stringify({ ...media.srtp }), JSON.stringify(Object.entries(media))]
    for (const text of views) {
      expect(text).not.toContain(KEY_CM)
      expect(text).not.toContain(sendKey)
    }
    expect(JSON.parse(JSON.stringify(media)).srtp).toEqual({ suite: 'AES_CM_128_HMAC_SHA1_80' })
    expect(inspect(media)).toContain('AES_CM_128_HMAC_SHA1_80')
    expect(Bun.inspect(media)).toContain('AES_CM_128_HMAC_SHA1_80')
  })

  test('our offer hides its keys the same way', () => {
    const offer = createMediaOffer(withPolicy('required'))
    const keys = cryptoOf(offer.sdp).map((c) => c.keys[0]!.inline)
    for (const text of [JSON.stringify(offer.srtp), inspect(offer.srtp, { showHidden: true }), Bun.inspect(offer.srtp), JSON.stringify({ ...offer.srtp })]) {
      for (const k of keys) expect(text).not.toContain(k)
    }
    expect(JSON.stringify(offer.srtp)).toContain('AEAD_AES_128_GCM')
  })

  test('a structured clone drops the keys (so the receiving side refuses it); the wire form carries them', () => {
    const cloned = structuredClone(media)
    expect(cloned.srtp).toEqual({ suite: 'AES_CM_128_HMAC_SHA1_80' } as never)
    expect(() => fromMediaWire(cloned)).toThrow(/toMediaWire/)
    const back = fromMediaWire(structuredClone(toMediaWire(media)))
    expect(back.srtp).toBeInstanceOf(NegotiatedSrtp)
    expect(back.srtp!.sendKey).toBe(sendKey)
    expect(back.srtp!.receiveKey).toBe(KEY_CM)
    expect(JSON.stringify(back)).not.toContain(KEY_CM)
    const { srtp: _a, ...rest } = back
    const { srtp: _b, ...before } = media
    expect(rest).toEqual(before)
  })

  test('plain media crosses unchanged, and media in the same thread passes as it is', () => {
    const plain = answerOffer(offerWith('RTP/AVP'), local).media
    expect(toMediaWire(plain)).toEqual(plain)
    expect(fromMediaWire(structuredClone(toMediaWire(plain)))).toEqual(plain)
    expect(fromMediaWire(media).srtp).toBe(media.srtp)
  })

  test('the wire form across a real worker thread keeps the keys', async () => {
    const worker = new Worker(URL.createObjectURL(new Blob(['self.onmessage = (e) => postMessage(e.data)'], { type: 'application/javascript' })))
    try {
      const echoed = await new Promise<unknown>((resolve) => {
        worker.onmessage = (e) => resolve(e.data)
        worker.postMessage(toMediaWire(media))
      })
      expect(fromMediaWire(echoed as never).srtp!.sendKey).toBe(sendKey)
    } finally {
      worker.terminate()
    }
  })
})

describe('refusal messages stay short', () => {
  test('long suite names and many lines are cut', () => {
    const lines = Array.from({ length: 20 }, (_, i) => `${i + 1} ${'X'.repeat(500)} inline:${KEY_CM}`)
    const err = sdpRefusal(() => answerOffer(offerWith('RTP/SAVP', lines), withPolicy('required')))
    expect(err.status).toBe(488)
    expect(err.message.length).toBeLessThan(800)
    expect(err.message).toContain('and 16 more')
  })
})
