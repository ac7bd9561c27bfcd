// baresip (Debian package) places a real call to the user agent: we answer, it ACKs, we hang up
// and baresip reports the session closed.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { UserAgent } from '../../../src/realtime/telephony/sip/index.ts'
import { InMemoryNumberDirectory } from '../../helpers/number-directory.ts'
import { dialWithBaresip } from '../../helpers/baresip.ts'

const NUMBER = '15550007777'
const DESK = '15550008888'
const SDP = 'v=0\r\no=- 1 1 IN IP4 127.0.0.1\r\ns=-\r\nc=IN IP4 127.0.0.1\r\nt=0 0\r\nm=audio 42000 RTP/AVP 0\r\na=rtpmap:0 PCMU/8000\r\n'

let ua: UserAgent
let dir: string

/** One second of a 440 Hz tone, 8 kHz 16-bit mono WAV: baresip's audio source. */
function toneWav(): Uint8Array {
  const n = 8000
  const buf = Buffer.alloc(44 + n * 2)
  buf.write('RIFF', 0)
  buf.writeUInt32LE(36 + n * 2, 4)
  buf.write('WAVEfmt ', 8)
  buf.writeUInt32LE(16, 16)
  buf.writeUInt16LE(1, 20)
  buf.writeUInt16LE(1, 22)
  buf.writeUInt32LE(8000, 24)
  buf.writeUInt32LE(16000, 28)
  buf.writeUInt16LE(2, 32)
  buf.writeUInt16LE(16, 34)
  buf.write('data', 36)
  buf.writeUInt32LE(n * 2, 40)
  for (let i = 0; i < n; i++) buf.writeInt16LE(Math.round(8000 * Math.sin((2 * Math.PI * 440 * i) / 8000)), 44 + i * 2)
  return buf
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'baresip-'))
  // a self-signed certificate for 127.0.0.1 for our TLS listener (given to baresip as its CA file)
  const gen = Bun.spawnSync(['openssl', 'req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=127.0.0.1',
    '-addext', 'subjectAltName=IP:127.0.0.1', '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem')])
  if (gen.exitCode !== 0) throw new Error(gen.stderr.toString())
  ua = new UserAgent({
    host: '127.0.0.1', publicHost: '127.0.0.1', port: 0, tlsPort: 0,
    tlsCert: readFileSync(join(dir, 'cert.pem'), 'utf8'), tlsKey: readFileSync(join(dir, 'key.pem'), 'utf8'), directory: new InMemoryNumberDirectory([NUMBER, DESK].map((number) => ({ number, trunkSources: ['127.0.0.1'] }))) })
  await ua.start()
})

afterAll(async () => {
  await ua.stop()
  rmSync(dir, { recursive: true, force: true })
})

/** Starts baresip dialling `number` with a tone as its microphone. */
function dial(number: string, transport: 'udp' | 'tls' = 'udp') {
  const target = transport === 'tls' ? `sip:${number}@127.0.0.1:${ua.ports.tls};transport=tls` : `sip:${number}@127.0.0.1:${ua.ports.udp}`
  return dialWithBaresip(target, toneWav(), { timeoutSec: 20, extraConfig: [`sip_cafile ${join(dir, 'cert.pem')}`] })
}

test('baresip calls a number, is answered, and sees our hang-up', async () => {
  const incoming = ua.next('call')
  const peer = dial(NUMBER)
  const closed = peer.saw('session closed')
  try {
    const [call] = await incoming
    expect(call.info.from.uri).toBe('sip:caller@127.0.0.1')
    expect(call.info.offer).toContain('PCMU/8000')
    const active = call.next('active')
    call.answer(SDP)
    await active
    const ended = call.next('ended')
    call.hangup()
    expect((await ended)[0]).toEqual({ reason: 'local_hangup' })
    expect(await closed, peer.output()).toBe(true)
    expect(peer.output()).toContain(`connecting to 'sip:${NUMBER}@127.0.0.1:${ua.ports.udp}'`)
  } finally {
    await peer.stop()
  }
})

test('baresip calls over TLS (our self-signed certificate made in the test) and is answered', async () => {
  const incoming = ua.next('call')
  const peer = dial(NUMBER, 'tls')
  try {
    const [call] = await incoming
    expect(call.info.remote.transport).toBe('tls')
    const active = call.next('active')
    call.answer(SDP)
    await active
    const ended = call.next('ended')
    call.hangup()
    expect((await ended)[0]).toEqual({ reason: 'local_hangup' })
    await peer.stop()
    expect(peer.output()).toContain(`Call established: sip:${NUMBER}@127.0.0.1:${ua.ports.tls};transport=tls`)
  } finally {
    await peer.stop()
  }
})

test('a call from baresip is transferred (REFER) to another number: baresip calls it and the first call ends as transferred', async () => {
  const first = ua.next('call')
  const peer = dial(NUMBER)
  try {
    const [call] = await first
    const states: string[] = []
    call.on('transfer', (state) => states.push(state))
    call.answer(SDP)
    await call.next('active')
    const second = ua.next('call')
    const ended = call.next('ended')
    call.transfer(`sip:${DESK}@127.0.0.1:${ua.ports.udp}`)
    const [desk] = await second
    expect(desk.info.number).toBe(DESK)
    desk.answer(SDP)
    expect((await ended)[0]).toEqual({ reason: 'transferred' })
    expect(states).toEqual(['accepted', 'trying', 'succeeded'])
    const deskEnded = desk.next('ended')
    desk.hangup()
    expect((await deskEnded)[0]).toEqual({ reason: 'local_hangup' })
    // baresip writes its log when it exits
    await peer.stop()
    expect(peer.output()).toContain(`transferring call`)
    expect(peer.output()).toContain(`connecting to '<sip:${DESK}@127.0.0.1:${ua.ports.udp}>'`)
  } finally {
    await peer.stop()
  }
})
