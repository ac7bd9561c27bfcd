// How the appliance and its Silero host process (silero-host.ts) talk. The audio and the
// recurrent state go through a shared memory file both map (no copy through a pipe); the pipe
// carries only small messages, each a little-endian u32 byte length, then:
//   request  u32 rows, u32 width, u32 sampleRate: score rows*width samples of the input area
//   reply    i32 rows: the probabilities and the next state are in the output areas
//            (rows 0 once, first: the model is loaded)
//   failure  i32 -1, then the message in UTF-8
// One request is in flight at a time. The state travels with every request, so the host keeps
// nothing between requests and a new host after a crash scores the next window exactly as the old
// one would have.

/** Floats of recurrent state per row and layer; the model's state is [2, rows, 128]. */
export const STATE_WIDTH = 128
/** The widest window with its context: 16 kHz, 512 samples after 64 of context. */
export const MAX_WIDTH = 576
/** Rows the shared memory holds; a larger batch goes as several requests. */
export const SHARED_ROWS = 512

/** The shared memory's areas, as views over one mapping. */
export interface SharedAreas {
  /** rows x width input samples. */
  input: Float32Array
  /** [2, rows, 128]: the state going in, overwritten by the state coming out. */
  state: Float32Array
  /** One probability per row. */
  output: Float32Array
}

export const SHARED_BYTES = SHARED_ROWS * (MAX_WIDTH + 2 * STATE_WIDTH + 1) * 4

export function sharedAreas(mem: Uint8Array): SharedAreas {
  if (mem.byteLength < SHARED_BYTES) throw new Error(`the shared memory holds ${mem.byteLength} bytes, not ${SHARED_BYTES}`)
  const at = mem.byteOffset
  const inputLen = SHARED_ROWS * MAX_WIDTH
  const stateLen = SHARED_ROWS * 2 * STATE_WIDTH
  return {
    input: new Float32Array(mem.buffer, at, inputLen),
    state: new Float32Array(mem.buffer, at + inputLen * 4, stateLen),
    output: new Float32Array(mem.buffer, at + (inputLen + stateLen) * 4, SHARED_ROWS),
  }
}

export interface ScoreRequest {
  rows: number
  width: number
  sampleRate: number
}

export type HostReply = { ok: true; rows: number } | { ok: false; error: string }

function message(body: number, fill: (view: DataView, bytes: Uint8Array) => void): Uint8Array {
  const bytes = new Uint8Array(4 + body)
  const view = new DataView(bytes.buffer)
  view.setUint32(0, body, true)
  fill(view, bytes)
  return bytes
}

export const encodeRequest = (r: ScoreRequest): Uint8Array =>
  message(12, (v) => {
    v.setUint32(4, r.rows, true)
    v.setUint32(8, r.width, true)
    v.setUint32(12, r.sampleRate, true)
  })

/** A request's body (after the length); throws on one that does not fit the shared memory. */
export function decodeRequest(body: Uint8Array): ScoreRequest {
  if (body.byteLength !== 12) throw new Error(`a request is 12 bytes, not ${body.byteLength}`)
  const v = new DataView(body.buffer, body.byteOffset, 12)
  const r = { rows: v.getUint32(0, true), width: v.getUint32(4, true), sampleRate: v.getUint32(8, true) }
  if (r.rows < 1 || r.rows > SHARED_ROWS || r.width < 1 || r.width > MAX_WIDTH) throw new Error(`a request of ${r.rows} rows of ${r.width} does not fit`)
  return r
}

export const encodeReply = (rows: number): Uint8Array => message(4, (v) => v.setInt32(4, rows, true))

export function encodeFailure(text: string): Uint8Array {
  const utf8 = new TextEncoder().encode(text.slice(0, 2000))
  return message(4 + utf8.length, (v, bytes) => {
    v.setInt32(4, -1, true)
    bytes.set(utf8, 8)
  })
}

export function decodeReply(body: Uint8Array): HostReply {
  const rows = new DataView(body.buffer, body.byteOffset, body.byteLength).getInt32(0, true)
  if (rows >= 0 && body.byteLength !== 4) throw new Error(`a reply is 4 bytes, not ${body.byteLength}`)
  return rows < 0 ? { ok: false, error: new TextDecoder().decode(body.subarray(4)) } : { ok: true, rows }
}

/** The largest message either side accepts (a failure's text). */
export const MAX_MESSAGE = 8192

/** Cuts a byte stream into message bodies; throws on a length out of bounds. */
export class MessageReader {
  private buf = new Uint8Array(0)

  push(chunk: Uint8Array): Uint8Array[] {
    let joined = chunk
    if (this.buf.length) {
      joined = new Uint8Array(this.buf.length + chunk.length)
      joined.set(this.buf)
      joined.set(chunk, this.buf.length)
    }
    const out: Uint8Array[] = []
    let at = 0
    while (joined.length - at >= 4) {
      const len = new DataView(joined.buffer, joined.byteOffset + at, 4).getUint32(0, true)
      if (len > MAX_MESSAGE || len < 4) throw new Error(`a message of ${len} bytes is out of bounds`)
      if (joined.length - at - 4 < len) break
      out.push(joined.slice(at + 4, at + 4 + len))
      at += 4 + len
    }
    this.buf = joined.slice(at)
    return out
  }
}
