// L16, the media-stream's 16 kHz PCM: little-endian bytes through CallMedia's codec seam, and
// never part of SIP's negotiation (MEDIA_CODECS refuses it, a peer's L16 offer finds no codec).
import { expect, test } from 'bun:test'
import { createAudioCodec } from '../../../src/realtime/media/call/index.ts'
import { answerOffer, parseCodecList, SdpError } from '../../../src/realtime/telephony/sdp/index.ts'

test('L16 encodes 16 kHz samples as little-endian bytes and decodes them back, at a 16 kHz clock', () => {
  const codec = createAudioCodec('L16')
  expect([codec.name, codec.clockRate]).toEqual(['L16', 16000])
  const pcm = Int16Array.from([1, -2, 0x1234, -32768, 32767])
  const bytes = codec.encode(pcm)
  expect([...bytes.subarray(0, 6)]).toEqual([1, 0, 0xfe, 0xff, 0x34, 0x12])
  expect([...codec.decode(bytes.slice())]).toEqual([...pcm])
})

test('L16 decodes a payload at an odd offset and drops an odd last byte', () => {
  const codec = createAudioCodec('L16')
  const backing = new Uint8Array([9, 0x34, 0x12, 0xff, 0x7f, 0x55])
  expect([...codec.decode(backing.subarray(1))]).toEqual([0x1234, 0x7fff])
})

test('L16 conceals a loss with fading audio, then silence', () => {
  const codec = createAudioCodec('L16')
  codec.decode(new Uint8Array(640).fill(0x10))
  const concealed = codec.conceal(320)
  expect(concealed.length).toBe(320)
  expect(concealed[0]).not.toBe(0)
  expect(codec.conceal(3200).at(-1)).toBe(0)
})

test('SIP never offers L16: MEDIA_CODECS refuses it', () => {
  expect(() => parseCodecList('PCMU,L16')).toThrow('unknown codec "L16" (known: PCMU, PCMA, opus)')
  expect(parseCodecList('opus,pcmu')).toEqual(['opus', 'PCMU'])
})

test("SIP never answers L16: a peer offering only L16 is refused 488, even with L16 in the local list", () => {
  const offer = ['v=0', 'o=- 1 1 IN IP4 127.0.0.1', 's=-', 'c=IN IP4 127.0.0.1', 't=0 0', 'm=audio 30000 RTP/AVP 96', 'a=rtpmap:96 L16/16000', ''].join('\r\n')
  let err: unknown
  try {
    answerOffer(offer, { address: '127.0.0.1', port: 40000, codecs: ['L16', 'PCMU'] })
  } catch (e) {
    err = e
  }
  expect(err).toBeInstanceOf(SdpError)
  expect((err as SdpError).status).toBe(488)
})
