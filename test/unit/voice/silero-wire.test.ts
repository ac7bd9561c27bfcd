import { describe, expect, test } from 'bun:test'
import { decodeReply, decodeRequest, encodeFailure, encodeReply, encodeRequest, MAX_MESSAGE, MessageReader, SHARED_BYTES, SHARED_ROWS, sharedAreas } from '../../../src/realtime/voice/vad/silero-wire.ts'

describe('the Silero host pipe protocol', () => {
  test('messages cut at any byte come out whole and in order', () => {
    const bytes = new Uint8Array([...encodeRequest({ rows: 1, width: 576, sampleRate: 16000 }), ...encodeRequest({ rows: 300, width: 288, sampleRate: 8000 }), ...encodeReply(300)])
    for (let cut = 1; cut < bytes.length; cut++) {
      const reader = new MessageReader()
      const bodies = [...reader.push(bytes.subarray(0, cut)), ...reader.push(bytes.subarray(cut))]
      expect(bodies.length).toBe(3)
      expect(decodeRequest(bodies[0]!)).toEqual({ rows: 1, width: 576, sampleRate: 16000 })
      expect(decodeRequest(bodies[1]!)).toEqual({ rows: 300, width: 288, sampleRate: 8000 })
      expect(decodeReply(bodies[2]!)).toEqual({ ok: true, rows: 300 })
    }
  })

  test('a failure carries its message', () => {
    const [body] = new MessageReader().push(encodeFailure('the model is broken'))
    expect(decodeReply(body!)).toEqual({ ok: false, error: 'the model is broken' })
  })

  test('a length out of bounds, or a request that does not fit the shared memory, is refused', () => {
    const huge = new Uint8Array(8)
    new DataView(huge.buffer).setUint32(0, MAX_MESSAGE + 1, true)
    expect(() => new MessageReader().push(huge)).toThrow(/out of bounds/)
    expect(() => new MessageReader().push(new Uint8Array(8))).toThrow(/out of bounds/)
    for (const r of [{ rows: SHARED_ROWS + 1, width: 576 }, { rows: 0, width: 576 }, { rows: 1, width: 577 }]) {
      const [body] = new MessageReader().push(encodeRequest({ ...r, sampleRate: 16000 }))
      expect(() => decodeRequest(body!)).toThrow(/does not fit/)
    }
  })

  test('the shared areas do not overlap and fill the mapping they need', () => {
    const a = sharedAreas(new Uint8Array(SHARED_BYTES))
    a.input.fill(1)
    a.state.fill(2)
    a.output.fill(3)
    expect(a.input.every((x) => x === 1) && a.state.every((x) => x === 2)).toBe(true)
    expect(a.input.byteLength + a.state.byteLength + a.output.byteLength).toBe(SHARED_BYTES)
    expect(() => sharedAreas(new Uint8Array(SHARED_BYTES - 4))).toThrow(/holds/)
  })
})
