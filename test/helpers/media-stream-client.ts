// Scripted clients of the media-stream WebSocket: a well-behaved one (Bun's WebSocket) that
// keeps what the agent sent, decoded, and a raw TCP one that can stop reading and shows the HTTP
// answer to its upgrade request.
import net from 'node:net'
import { decodeG711, encodeG711 } from '../../src/realtime/media/codec/index.ts'
import { resample } from '../../src/realtime/voice/resample.ts'

export interface StreamClient {
  ws: WebSocket
  /** JSON messages in order, media included. */
  messages: any[]
  /** The agent's audio so far at the format's rate, one entry per 20 ms. */
  frames: Int16Array[]
  /** How many frames had arrived when each clear did. */
  clearAt: number[]
  closed: Promise<{ code: number; reason: string }>
  /** The start message. */
  started: Promise<any>
  /** Sends 16 kHz PCM in the format, 20 ms a message on the packet clock. */
  say(pcm16k: Int16Array): Promise<void>
  send(msg: unknown): void
}

export function connectStream(baseUrl: string, agentId: string, key: string, format: 'mulaw' | 'pcm16' = 'mulaw'): StreamClient {
  const ws = new WebSocket(`${baseUrl.replace('http', 'ws')}/api/agents/${agentId}/media-stream?format=${format}`, { headers: { authorization: `Bearer ${key}` } } as any)
  ws.binaryType = 'arraybuffer'
  const c: StreamClient = {
    ws,
    messages: [],
    frames: [],
    clearAt: [],
    closed: new Promise((resolve) => ws.addEventListener('close', (e) => resolve({ code: e.code, reason: e.reason }))),
    started: new Promise((resolve) => ws.addEventListener('message', (e) => typeof e.data === 'string' && JSON.parse(e.data).event === 'start' && resolve(JSON.parse(e.data)))),
    async say(pcm16k) {
      const pcm = format === 'mulaw' ? resample(pcm16k, 16000, 8000) : pcm16k
      const step = format === 'mulaw' ? 160 : 320
      for (let i = 0; i + step <= pcm.length && ws.readyState === WebSocket.OPEN; i += step) {
        const frame = pcm.subarray(i, i + step)
        if (format === 'mulaw') ws.send(JSON.stringify({ event: 'media', media: { payload: Buffer.from(encodeG711('ulaw', frame)).toString('base64') } }))
        else ws.send(new Uint8Array(frame.slice().buffer))
        await Bun.sleep(20) // the packet clock of a real-time sender
      }
    },
    send: (msg) => ws.send(typeof msg === 'string' || msg instanceof Uint8Array ? msg : JSON.stringify(msg)),
  }
  ws.addEventListener('message', (e) => {
    if (typeof e.data !== 'string') return void c.frames.push(new Int16Array(e.data as ArrayBuffer))
    const msg = JSON.parse(e.data)
    c.messages.push(msg)
    if (msg.event === 'media') c.frames.push(decodeG711('ulaw', Buffer.from(msg.media.payload, 'base64')))
    if (msg.event === 'clear') c.clearAt.push(c.frames.length)
  })
  return c
}

/** A server frame: opcode and payload (close: code and reason). */
export interface RawFrame {
  opcode: number
  payload: Buffer
}

export interface RawStream {
  socket: net.Socket
  /** The HTTP answer's status line, headers and (for a refusal) body. */
  response: Promise<{ status: number; head: string; body: string }>
  /** Resolves with the first server frame `match` accepts, received already or to come. */
  frame(match: (f: RawFrame) => boolean): Promise<RawFrame>
  /** Sends a masked client text frame. */
  sendText(text: string): boolean
  /** Sends only the head of a masked binary frame announcing `length` bytes, and none of them. */
  sendFrameHead(length: number): boolean
  /** Stops reading: the kernel's buffers fill, then the server's. */
  stopReading(): void
  resumeReading(): void
}

/** Opens a TCP connection and asks to upgrade, with the WebSocket framing done by hand. */
export function rawStream(port: number, path: string, headers: Record<string, string>): RawStream {
  const socket = net.connect(port, '127.0.0.1')
  socket.on('error', () => {}) // the server may cut a client that does not read
  let buf = Buffer.alloc(0)
  let upgraded = false
  const seen: RawFrame[] = []
  const waiting: { match: (f: RawFrame) => boolean; resolve: (f: RawFrame) => void }[] = []
  let answer!: (r: { status: number; head: string; body: string }) => void
  const response = new Promise<{ status: number; head: string; body: string }>((r) => (answer = r))
  socket.on('data', (chunk: Buffer) => {
    buf = Buffer.concat([buf, chunk])
    if (!upgraded) {
      const end = buf.indexOf('\r\n\r\n')
      if (end < 0) return
      const head = buf.subarray(0, end).toString()
      const status = Number(head.split(' ')[1])
      const length = Number(/content-length: *(\d+)/i.exec(head)?.[1] ?? 0)
      if (status !== 101 && buf.length < end + 4 + length) return
      answer({ status, head, body: buf.subarray(end + 4, end + 4 + length).toString() })
      buf = buf.subarray(status === 101 ? end + 4 : buf.length)
      upgraded = status === 101
    }
    for (;;) {
      if (buf.length < 2) return
      let len = buf[1]! & 0x7f
      let at = 2
      if (len === 126) (len = buf.length >= 4 ? buf.readUInt16BE(2) : Infinity), (at = 4)
      else if (len === 127) (len = buf.length >= 10 ? Number(buf.readBigUInt64BE(2)) : Infinity), (at = 10)
      if (buf.length < at + len) return
      const f = { opcode: buf[0]! & 0x0f, payload: buf.subarray(at, at + len) }
      buf = buf.subarray(at + len)
      seen.push(f)
      for (const w of waiting.filter((w) => w.match(f))) waiting.splice(waiting.indexOf(w), 1), w.resolve(f)
    }
  })
  const lines = [`GET ${path} HTTP/1.1`, `Host: 127.0.0.1:${port}`, 'Upgrade: websocket', 'Connection: Upgrade', 'Sec-WebSocket-Version: 13', `Sec-WebSocket-Key: ${Buffer.from(crypto.getRandomValues(new Uint8Array(16))).toString('base64')}`]
  socket.write([...lines, ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`), '', ''].join('\r\n'))
  return {
    socket,
    response,
    frame: (match) => new Promise((resolve) => {
      const had = seen.find(match)
      if (had) resolve(had)
      else waiting.push({ match, resolve })
    }),
    sendText(text) {
      const payload = Buffer.from(text)
      const len = payload.length
      const head = len < 126 ? Buffer.from([0x81, 0x80 | len]) : Buffer.from([0x81, 0x80 | 126, len >> 8, len & 0xff])
      // a zero mask: masked as the protocol requires, the bytes unchanged
      return socket.write(Buffer.concat([head, Buffer.alloc(4), payload]))
    },
    sendFrameHead(length) {
      const head = Buffer.alloc(14)
      head[0] = 0x82
      head[1] = 0x80 | 127
      head.writeBigUInt64BE(BigInt(length), 2)
      return socket.write(head) // the 4-byte mask follows the length, zero
    },
    stopReading: () => void socket.pause(),
    resumeReading: () => void socket.resume(),
  }
}

/** A close frame's code and reason. */
export const closeOf = (f: RawFrame) => ({ code: f.payload.readUInt16BE(0), reason: f.payload.subarray(2).toString() })
/** A text frame's JSON, when it is one. */
export const jsonOf = (f: RawFrame) => (f.opcode === 1 ? JSON.parse(f.payload.toString()) : undefined)
