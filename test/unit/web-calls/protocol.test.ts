// The media-stream's messages: what a client may send, the close code and reason each bad
// message earns, and the server's messages in Twilio Media Streams' shape.
import { describe, expect, test } from 'bun:test'
import { CLOSE, closeReason, MAX_MESSAGE_BYTES, parseClientMessage, ServerMessages } from '../../../src/features/web-calls/stream/protocol.ts'

const json = (v: unknown) => JSON.stringify(v)

describe('client messages', () => {
  test('a media message carries base64 μ-law audio', () => {
    const r = parseClientMessage(json({ event: 'media', streamSid: 'MZ1', media: { track: 'inbound', payload: Buffer.from([1, 2, 255]).toString('base64') } }), 'mulaw')
    expect(r.ok && r.message.event === 'media' && [...r.message.audio]).toEqual([1, 2, 255])
  })

  test('a binary frame carries pcm16 audio', () => {
    const r = parseClientMessage(new Uint8Array(640), 'pcm16')
    expect(r.ok && r.message.event === 'media' && r.message.audio.length).toBe(640)
  })

  test.each([
    [{ event: 'mark', mark: { name: 'greeting-done' } }, { event: 'mark', name: 'greeting-done' }],
    [{ event: 'dtmf', dtmf: { track: 'inbound_track', digit: 'b' } }, { event: 'dtmf', digit: 'B' }],
    [{ event: 'clear' }, { event: 'clear' }],
    [{ event: 'stop', stop: {} }, { event: 'stop' }],
    [{ event: 'connected', protocol: 'Call' }, { event: 'ignored' }],
    [{ event: 'start', start: {} }, { event: 'ignored' }],
  ])('%j is understood as %j', (msg, expected) => {
    expect(parseClientMessage(json(msg), 'mulaw')).toEqual({ ok: true, message: expected as never })
  })

  test.each([
    ['not JSON', 'hello', 'mulaw', CLOSE.invalidPayload, 'a text message must be a JSON object'],
    ['a JSON array', '[1]', 'mulaw', CLOSE.invalidPayload, 'a text message must be a JSON object'],
    ['no event', json({ media: {} }), 'mulaw', CLOSE.invalidPayload, 'a message needs an event (media, mark, clear, dtmf or stop)'],
    ['an unknown event', json({ event: 'dance' }), 'mulaw', CLOSE.invalidPayload, 'unknown event "dance" (expected media, mark, clear, dtmf or stop)'],
    ['an unknown event with a long name', json({ event: 'x'.repeat(500) }), 'mulaw', CLOSE.invalidPayload, `unknown event "${'x'.repeat(24)}…" (expected media, mark, clear, dtmf or stop)`],
    ['media without a payload', json({ event: 'media', media: {} }), 'mulaw', CLOSE.invalidPayload, 'media.payload must be a base64 string'],
    ['media with bad base64', json({ event: 'media', media: { payload: 'ab$d' } }), 'mulaw', CLOSE.invalidPayload, 'media.payload is not valid base64'],
    ['media with unpadded base64', json({ event: 'media', media: { payload: 'abc' } }), 'mulaw', CLOSE.invalidPayload, 'media.payload is not valid base64'],
    ['a mark without a name', json({ event: 'mark', mark: {} }), 'mulaw', CLOSE.invalidPayload, 'mark.name must be a string of 1 to 256 characters'],
    ['a mark with a long name', json({ event: 'mark', mark: { name: 'n'.repeat(257) } }), 'mulaw', CLOSE.invalidPayload, 'mark.name must be a string of 1 to 256 characters'],
    ['a dtmf that is not a key', json({ event: 'dtmf', dtmf: { digit: '12' } }), 'mulaw', CLOSE.invalidPayload, 'dtmf.digit must be one of 0-9 * # A-D, not "12"'],
    ['a binary frame in mulaw', new Uint8Array(160), 'mulaw', CLOSE.unsupportedData, 'binary frames carry audio only with format=pcm16; send media messages'],
    ['a media message in pcm16', json({ event: 'media', media: { payload: 'AAAA' } }), 'pcm16', CLOSE.unsupportedData, 'with format=pcm16 audio travels in binary frames, not media messages'],
    ['half a sample in pcm16', new Uint8Array(3), 'pcm16', CLOSE.invalidPayload, 'a pcm16 frame holds whole 16-bit samples (an even number of bytes)'],
    ['a text message over the limit', ' '.repeat(MAX_MESSAGE_BYTES + 1), 'mulaw', CLOSE.tooBig, 'a message may hold at most 65536 bytes'],
    ['a text message over the limit in UTF-8 bytes', 'é'.repeat(MAX_MESSAGE_BYTES / 2 + 1), 'mulaw', CLOSE.tooBig, 'a message may hold at most 65536 bytes'],
    ['a binary frame over the limit', new Uint8Array(MAX_MESSAGE_BYTES + 2), 'pcm16', CLOSE.tooBig, 'a message may hold at most 65536 bytes'],
  ] as const)('%s closes with its code and reason', (_, data, format, code, reason) => {
    expect(parseClientMessage(data, format)).toEqual({ ok: false, code, reason })
  })
})

describe('server messages', () => {
  test('connected, then start with the call and the media format, numbered from 1', () => {
    const m = new ServerMessages('MZabc')
    expect(JSON.parse(m.connected())).toEqual({ event: 'connected', protocol: 'Call', version: '1.0.0' })
    expect(JSON.parse(m.start({ callSid: 'call_1', accountSid: 'ws_1', agentId: 'ag_1', format: 'pcm16' }))).toEqual({
      event: 'start',
      sequenceNumber: '1',
      streamSid: 'MZabc',
      start: {
        streamSid: 'MZabc', accountSid: 'ws_1', callSid: 'call_1', agentId: 'ag_1', tracks: ['inbound', 'outbound'], customParameters: {},
        mediaFormat: { encoding: 'audio/x-l16', sampleRate: 16000, channels: 1 },
      },
    })
  })

  test('media carries the outbound track, its chunk and timestamp as strings, and the payload in base64', () => {
    const m = new ServerMessages('MZabc')
    m.media(new Uint8Array(160), 0)
    const second = JSON.parse(m.media(new Uint8Array([0xff, 0x7f]).subarray(1), 20.4))
    expect(second).toEqual({ event: 'media', sequenceNumber: '2', streamSid: 'MZabc', media: { track: 'outbound', chunk: '2', timestamp: '20', payload: 'fw==' } })
  })

  test('mark, clear and stop', () => {
    const m = new ServerMessages('MZabc')
    expect(JSON.parse(m.mark('a'))).toEqual({ event: 'mark', sequenceNumber: '1', streamSid: 'MZabc', mark: { name: 'a' } })
    expect(JSON.parse(m.clear())).toEqual({ event: 'clear', sequenceNumber: '2', streamSid: 'MZabc' })
    expect(JSON.parse(m.stop({ accountSid: 'ws_1', callSid: 'call_1' }))).toEqual({ event: 'stop', sequenceNumber: '3', streamSid: 'MZabc', stop: { accountSid: 'ws_1', callSid: 'call_1' } })
  })
})

test('a close reason is cut to the 123 bytes a close frame holds', () => {
  expect(closeReason('short')).toBe('short')
  const cut = closeReason('ü'.repeat(100))
  expect(Buffer.byteLength(cut)).toBeLessThanOrEqual(123)
  expect(cut.endsWith('…')).toBe(true)
})
