import { describe, expect, test } from 'bun:test'
import * as sdpTransform from 'sdp-transform'
import { acceptAnswer, answerOffer, createOffer, parseCodecList, SdpError } from '../../../../src/realtime/telephony/sdp/index.ts'

const crlf = (s: string) => s.trim().split('\n').map((l) => l.trim()).join('\r\n') + '\r\n'

// A typical PBX offer: PCMU, PCMA, G.729, telephone-event, session-level c=.
const PBX_OFFER = crlf(`
  v=0
  o=asterisk 100 200 IN IP4 192.0.2.10
  s=Asterisk
  c=IN IP4 192.0.2.10
  t=0 0
  m=audio 30000 RTP/AVP 0 8 18 101
  a=rtpmap:0 PCMU/8000
  a=rtpmap:8 PCMA/8000
  a=rtpmap:18 G729/8000
  a=rtpmap:101 telephone-event/8000
  a=fmtp:101 0-16
  a=ptime:20
  a=sendrecv`)

const local = { address: '198.51.100.5', port: 40000, sessionId: 1, sessionVersion: 1 }

describe('SDP answer to an offer', () => {
  test('picks our preferred codec, keeps the offerer payload type for telephone-event and answers sendrecv', () => {
    const { sdp, media } = answerOffer(PBX_OFFER, { ...local, codecs: ['PCMA', 'PCMU'] })
    expect(media).toMatchObject({
      remoteAddress: '192.0.2.10',
      remotePort: 30000,
      remoteRtcpPort: 30001,
      rtcpMux: false,
      codec: { name: 'PCMA', payloadType: 8, clockRate: 8000 },
      telephoneEvent: { payloadType: 101, clockRate: 8000 },
      ptimeMs: 20,
      direction: 'sendrecv',
      remoteHold: false,
    })
    const parsed = sdpTransform.parse(sdp)
    expect(parsed.connection?.ip).toBe('198.51.100.5')
    expect(parsed.media[0]).toMatchObject({ port: 40000, payloads: '8 101', direction: 'sendrecv', ptime: 20 })
  })

  test("with preferenceOrder 'remote' the offerer's first acceptable codec wins", () => {
    const { media } = answerOffer(PBX_OFFER, { ...local, codecs: ['PCMA', 'PCMU'], preferenceOrder: 'remote' })
    expect(media.codec.name).toBe('PCMU')
  })

  test('a media-level c= overrides the session level; rtcp-mux is honoured when offered', () => {
    const offer = crlf(`
      v=0
      o=- 1 1 IN IP4 192.0.2.1
      s=-
      c=IN IP4 192.0.2.1
      t=0 0
      m=audio 5004 RTP/AVP 8
      c=IN IP4 203.0.113.7
      a=rtcp-mux
      a=ptime:30`)
    const { sdp, media } = answerOffer(offer, local)
    expect(media).toMatchObject({ remoteAddress: '203.0.113.7', remoteRtcpPort: 5004, rtcpMux: true, ptimeMs: 30, telephoneEvent: undefined })
    expect(sdp).toContain('a=rtcp-mux')
    expect(sdp).not.toContain('telephone-event')
  })

  test('an explicit a=rtcp port is used for RTCP without mux', () => {
    const offer = PBX_OFFER.replace('a=sendrecv', 'a=sendrecv\r\na=rtcp:30011')
    expect(answerOffer(offer, local).media.remoteRtcpPort).toBe(30011)
  })

  test('opus/48000/2 is accepted with its dynamic payload type and 48 kHz telephone-event', () => {
    const offer = crlf(`
      v=0
      o=- 1 1 IN IP4 192.0.2.1
      s=-
      c=IN IP4 192.0.2.1
      t=0 0
      m=audio 5004 RTP/AVP 96 0 97
      a=rtpmap:96 opus/48000/2
      a=fmtp:96 useinbandfec=1
      a=rtpmap:97 telephone-event/48000
      a=ptime:20`)
    const { sdp, media } = answerOffer(offer, { ...local, codecs: ['opus', 'PCMU'] })
    expect(media.codec).toMatchObject({ name: 'opus', payloadType: 96, clockRate: 48000, channels: 2 })
    expect(media.telephoneEvent).toEqual({ payloadType: 97, clockRate: 48000 })
    expect(sdp).toContain('a=rtpmap:96 opus/48000/2')
    expect(sdp).toContain('stereo=0')
  })

  test('hold offers (sendonly, inactive, c=0.0.0.0) are answered recvonly/inactive and flagged as remote hold', () => {
    const sendonly = answerOffer(PBX_OFFER.replace('a=sendrecv', 'a=sendonly'), local).media
    expect(sendonly).toMatchObject({ direction: 'recvonly', remoteHold: true })
    const inactive = answerOffer(PBX_OFFER.replace('a=sendrecv', 'a=inactive'), local)
    expect(inactive.media).toMatchObject({ direction: 'inactive', remoteHold: true })
    expect(inactive.sdp).toContain('a=inactive')
    expect(answerOffer(PBX_OFFER.replace('a=sendrecv', 'a=recvonly'), local).media.direction).toBe('sendonly')
    expect(answerOffer(PBX_OFFER.replaceAll('IN IP4 192.0.2.10', 'IN IP4 0.0.0.0'), local).media.remoteHold).toBe(true)
  })

  test('ptime outside 10..60 falls back to ours; maxptime caps it', () => {
    expect(answerOffer(PBX_OFFER.replace('a=ptime:20', 'a=ptime:5'), local).media.ptimeMs).toBe(20)
    expect(answerOffer(PBX_OFFER.replace('a=ptime:20', 'a=ptime:80'), { ...local, ptimeMs: 40 }).media.ptimeMs).toBe(40)
    expect(answerOffer(PBX_OFFER.replace('a=ptime:20', 'a=maxptime:10'), { ...local, ptimeMs: 20 }).media.ptimeMs).toBe(10)
  })

  test('a video stream and a second audio stream are rejected with port 0, keeping the m-line count', () => {
    const offer = PBX_OFFER + 'm=video 30002 RTP/AVP 96\r\na=rtpmap:96 VP8/90000\r\nm=audio 30004 RTP/AVP 0\r\n'
    const parsed = sdpTransform.parse(answerOffer(offer, local).sdp)
    expect(parsed.media.map((m) => [m.type, m.port])).toEqual([['audio', 40000], ['video', 0], ['audio', 0]])
  })

  test('no codec in common is a 488 Not Acceptable Here', () => {
    const g729only = PBX_OFFER.replace('m=audio 30000 RTP/AVP 0 8 18 101', 'm=audio 30000 RTP/AVP 18 101')
    let err: unknown
    try {
      answerOffer(g729only, local)
    } catch (e) {
      err = e
    }
    expect(err).toBeInstanceOf(SdpError)
    expect((err as SdpError).status).toBe(488)
    expect((err as SdpError).reason).toBe('Not Acceptable Here')
    // SRTP-only offers are also unacceptable: we do not do SAVP.
    expect(() => answerOffer(PBX_OFFER.replace('RTP/AVP', 'RTP/SAVP'), local)).toThrow(SdpError)
  })

  test('garbage and an SDP without c= are 400-class SdpErrors, never crashes', () => {
    for (const bad of ['', 'hello', 'v=0\r\nm=audio x', PBX_OFFER.replace('c=IN IP4 192.0.2.10\r\n', ''), PBX_OFFER.replace('m=audio 30000', 'm=audio 70000')]) {
      let err: unknown
      try {
        answerOffer(bad, local)
      } catch (e) {
        err = e
      }
      expect(err).toBeInstanceOf(SdpError)
    }
  })
})

describe('SDP offer and answer from our side', () => {
  test('our offer lists the preferred codecs, telephone-event, ptime and rtcp-mux, and reads back through answerOffer', () => {
    const offer = createOffer({ ...local, codecs: ['opus', 'PCMU', 'PCMA'], ptimeMs: 20 })
    const m = sdpTransform.parse(offer).media[0]!
    expect(m.payloads).toBe('111 0 8 101')
    expect(m.rtcpMux).toBe('rtcp-mux')
    // The peer (here: our own answerer) chooses PCMU.
    const peer = answerOffer(offer, { address: '192.0.2.99', port: 7000, codecs: ['PCMU'] })
    const media = acceptAnswer(peer.sdp, { ...local, codecs: ['opus', 'PCMU', 'PCMA'] })
    expect(media).toMatchObject({ remoteAddress: '192.0.2.99', remotePort: 7000, rtcpMux: true, codec: { name: 'PCMU' }, telephoneEvent: { payloadType: 101 } })
  })

  test('an answer choosing a codec we did not offer, or rejecting audio, is a 488', () => {
    const answer = PBX_OFFER.replace('m=audio 30000 RTP/AVP 0 8 18 101', 'm=audio 30000 RTP/AVP 18')
    expect(() => acceptAnswer(answer, local)).toThrow(SdpError)
    expect(() => acceptAnswer(PBX_OFFER.replace('m=audio 30000', 'm=audio 0'), local)).toThrow(SdpError)
  })

  test('codec preference lists are validated', () => {
    expect(parseCodecList('opus, pcmu,PCMA,pcmu')).toEqual(['opus', 'PCMU', 'PCMA'])
    expect(() => parseCodecList('G729')).toThrow(RangeError)
    expect(() => parseCodecList(' , ')).toThrow(RangeError)
  })
})
