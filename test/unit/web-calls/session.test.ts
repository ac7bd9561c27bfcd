// One media-stream session against a stand-in socket and call runtime: greeting and start, the
// caller's audio paced into the call, the agent's audio and barge-in out, hang-ups both ways, a
// client that stops reading, and a socket that goes away while its call is starting.
import { expect, test } from 'bun:test'
import type { AgentSnapshot } from '../../../src/features/agents/index.ts'
import { CallRefused, type AppCallRequest } from '../../../src/features/calls/index.ts'
import { StreamSession, type StreamSocket } from '../../../src/features/web-calls/stream/session.ts'
import { createLogger } from '../../../src/platform/log.ts'
import type { MediaLink } from '../../../src/realtime/media/index.ts'
import type { RtpPacket } from '../../../src/realtime/media/rtp/index.ts'
import { until } from '../../helpers/until.ts'

class FakeSocket implements StreamSocket {
  sent: (string | Uint8Array)[] = []
  closedWith?: [number, string]
  buffered = 0
  terminated = false
  send(data: string | Uint8Array) {
    this.sent.push(data)
    return typeof data === 'string' ? data.length : data.byteLength
  }
  getBufferedAmount = () => this.buffered
  close(code = 1000, reason = '') {
    this.closedWith = [code, reason]
  }
  terminate() {
    this.terminated = true
  }
  events = () => this.sent.filter((d): d is string => typeof d === 'string').map((d) => JSON.parse(d))
  names = () => this.events().map((e) => e.event)
}

interface Harness {
  session: StreamSession
  ws: FakeSocket
  req: AppCallRequest
  link: MediaLink
  packets: RtpPacket[]
  ended: string[]
  digits: string[]
  done: () => number
}

async function start(format: 'mulaw' | 'pcm16' = 'mulaw', startCall?: (req: AppCallRequest) => Promise<{ callId: string }>, closeGraceMs?: number): Promise<Harness> {
  let req!: AppCallRequest
  let doneCount = 0
  const session = new StreamSession({
    format, agent: { agentId: 'ag_1' } as AgentSnapshot, from: 'usr_1', workspaceId: 'ws_1', draft: false, remote: { address: '127.0.0.1', port: 5000 },
    startCall: startCall ?? (async (r) => ((req = r), { callId: 'call_1' })),
    log: createLogger('silent'),
    onDone: () => doneCount++,
    closeGraceMs,
  })
  const ended: string[] = []
  const digits: string[] = []
  session.leg.on('ended', (info) => ended.push(info.reason))
  session.leg.on('dtmf', (d) => digits.push(d))
  const ws = new FakeSocket()
  await session.open(ws)
  const packets: RtpPacket[] = []
  const link = req?.link ? req.link({ onPacket: (p) => packets.push(p) }) : (undefined as never)
  return { session, ws, req, link, packets, ended, digits, done: () => doneCount }
}

test('connected at once, start once the call has its id and its media, then the agent audio of each 20 ms step as a media message', async () => {
  const h = await start()
  expect(h.req.leg.kind).toBe('stream')
  expect(h.req.media.codec).toMatchObject({ name: 'PCMU', payloadType: 0, clockRate: 8000 })
  expect(h.ws.names()).toEqual(['connected', 'start'])
  expect(h.ws.events()[1].start).toMatchObject({ callSid: 'call_1', accountSid: 'ws_1', mediaFormat: { encoding: 'audio/x-mulaw' } })
  h.link.send(0, new Uint8Array(160).fill(0xff), 160, false)
  expect(h.ws.events()[2].media).toEqual({ track: 'outbound', chunk: '1', timestamp: '20', payload: Buffer.alloc(160, 0xff).toString('base64') })
})

test('pcm16 runs the call on L16 and sends the agent audio as binary frames', async () => {
  const h = await start('pcm16')
  expect(h.req.media.codec).toMatchObject({ name: 'L16', clockRate: 16000 })
  h.link.send(96, new Uint8Array(640), 0, false)
  expect(h.ws.sent.at(-1)).toBeInstanceOf(Uint8Array)
})

test("the caller's audio reaches the call one 20 ms packet per send step, with consecutive sequence numbers and timestamps", async () => {
  const h = await start()
  h.session.message(JSON.stringify({ event: 'media', media: { payload: Buffer.alloc(400, 1).toString('base64') } }))
  for (let i = 0; i < 4; i++) h.link.send(0, new Uint8Array(160), i * 160, false)
  expect(h.packets.length).toBe(2)
  const [a, b] = h.packets
  expect(b!.sequenceNumber).toBe((a!.sequenceNumber + 1) & 0xffff)
  expect(b!.timestamp).toBe((a!.timestamp + 160) >>> 0)
  expect([a!.payloadType, a!.ssrc]).toEqual([0, b!.ssrc])
})

test('barge-in: the call flushing the agent audio sends clear', async () => {
  const h = await start()
  h.link.flushed?.()
  expect(h.ws.names().at(-1)).toBe('clear')
})

test('a dtmf message reaches the call as a digit', async () => {
  const h = await start()
  h.session.message(JSON.stringify({ event: 'dtmf', dtmf: { digit: '7' } }))
  expect(h.digits).toEqual(['7'])
})

test('the agent hanging up sends stop and closes 1000', async () => {
  const h = await start()
  h.req.leg.hangup()
  expect(h.ws.events().at(-1)).toMatchObject({ event: 'stop', stop: { callSid: 'call_1', accountSid: 'ws_1' } })
  expect(h.ws.closedWith).toEqual([1000, 'the call ended'])
  h.session.closed(1000, '')
  expect(h.done()).toBe(1)
})

test('a client stop closes 1000 and ends the call as a remote hang-up; a closed socket the same', async () => {
  const h = await start()
  h.session.message(JSON.stringify({ event: 'stop' }))
  expect(h.ws.closedWith).toEqual([1000, 'stopped by the client'])
  expect(h.ended).toEqual(['remote_hangup'])
  const g = await start()
  g.session.closed(1006, '')
  expect(g.ended).toEqual(['remote_hangup'])
  expect(g.done()).toBe(1)
})

test('a bad message closes with its code and ends the call as failed; later messages are ignored', async () => {
  const h = await start()
  h.session.message('{"event":"dance"}')
  expect(h.ws.closedWith?.[0]).toBe(1007)
  expect(h.ended).toEqual(['failed'])
  h.session.message(JSON.stringify({ event: 'dtmf', dtmf: { digit: '1' } }))
  expect(h.digits).toEqual([])
})

test('a client that stops reading is closed 1008 once over 2 s of audio waits unsent, and cut off if it never answers the close', async () => {
  const h = await start('mulaw', undefined, 10)
  h.ws.buffered = 100 * 330
  h.link.send(0, new Uint8Array(160), 0, false)
  expect(h.ws.closedWith).toBeUndefined()
  h.ws.buffered = 100 * 330 + 1
  h.link.send(0, new Uint8Array(160), 160, false)
  expect(h.ws.closedWith).toEqual([1008, 'the client is not reading: over 2 s of audio waits unsent'])
  expect(h.ended).toEqual(['failed'])
  const sent = h.ws.sent.length
  h.link.send(0, new Uint8Array(160), 320, false)
  expect(h.ws.sent.length).toBe(sent)
  await until(() => h.ws.terminated, 2000, 'the socket cut off')
})

test('a socket closed while the call is starting ends the call once it has started, not before (no call would hear it)', async () => {
  let release!: (v: { callId: string }) => void
  const session = new StreamSession({
    format: 'mulaw', agent: { agentId: 'ag_1' } as AgentSnapshot, from: 'usr_1', workspaceId: 'ws_1', draft: false, remote: { address: '127.0.0.1', port: 5000 },
    startCall: () => new Promise((r) => (release = r)),
    log: createLogger('silent'),
    onDone: () => {},
  })
  const ended: string[] = []
  session.leg.on('ended', (info) => ended.push(info.reason))
  const opening = session.open(new FakeSocket())
  session.closed(1006, '')
  expect(ended).toEqual([])
  release({ callId: 'call_2' })
  await opening
  expect(ended).toEqual(['remote_hangup'])
})

test('a call the appliance refuses closes 1013 (try again later); any other failure 1011', async () => {
  const busy = await start('mulaw', () => Promise.reject(new CallRefused('stopping')))
  expect(busy.ws.closedWith).toEqual([1013, 'the appliance takes no calls now (the appliance is stopping); try again later'])
  const broken = await start('mulaw', () => Promise.reject(new Error('database is gone')))
  expect(broken.ws.closedWith).toEqual([1011, 'the call could not be started'])
})
