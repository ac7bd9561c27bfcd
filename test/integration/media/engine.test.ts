import { afterEach, describe, expect, test } from 'bun:test'
import { existsSync, mkdirSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { opusAvailable, tone, toneLevelDb } from '../../../src/realtime/media/codec/index.ts'
import { MediaEngine, type CallMedia } from '../../../src/realtime/media/index.ts'
import { wavHeader } from '../../../src/realtime/media/recorder/index.ts'
import { answerOffer, acceptAnswer, createOffer } from '../../../src/realtime/telephony/sdp/index.ts'
import { readStereoWav } from '../../helpers/media-call.ts'
import { tempDir } from '../../helpers/tmp.ts'

const BASE = 48000 + 2 * Math.floor(Math.random() * 2000)
let engines: MediaEngine[] = []
afterEach(async () => {
  for (const e of engines) await e.stop()
  engines = []
})

function engine(offset: number, extra: Record<string, unknown> = {}) {
  const dataDir = tempDir('media-engine-')
  const e = new MediaEngine({ RTP_PORT_MIN: BASE + offset, RTP_PORT_MAX: BASE + offset + 19, DATA_DIR: dataDir, ...extra }, { bindHost: '127.0.0.1' })
  engines.push(e)
  return { e, dataDir }
}

/** Offer from `a`, answer from `b`, media started on both with a frame collector each. */
async function connect(a: MediaEngine, b: MediaEngine, idA: string, idB: string) {
  const portsA = await a.allocatePorts()
  const portsB = await b.allocatePorts()
  const offer = createOffer(a.sdpOptions('127.0.0.1', portsA))
  const answer = answerOffer(offer, b.sdpOptions('127.0.0.1', portsB))
  const mediaA = acceptAnswer(answer.sdp, a.sdpOptions('127.0.0.1', portsA))
  const framesA: Int16Array[] = []
  const framesB: Int16Array[] = []
  let wake = () => {}
  const callA = await a.startCall(idA, portsA, mediaA, { onAudio: (f) => (framesA.push(f), wake()) })
  const callB = await b.startCall(idB, portsB, answer.media, { onAudio: (f) => (framesB.push(f), wake()) })
  const until = (cond: () => boolean) =>
    new Promise<void>((resolve) => {
      wake = () => cond() && resolve()
    })
  return { callA, callB, framesA, framesB, until, codec: mediaA.codec.name }
}

const concat = (frames: Int16Array[]) => {
  const out = new Int16Array(frames.length * 320)
  frames.forEach((f, i) => out.set(f, i * 320))
  return out
}

async function toneBothWays(callA: CallMedia, callB: CallMedia, framesA: Int16Array[], framesB: Int16Array[], until: (c: () => boolean) => Promise<void>) {
  callA.play(tone(440, 16000, 16000 * 2, 8000))
  callB.play(tone(1000, 16000, 16000 * 2, 8000))
  await until(() => framesA.length >= 60 && framesB.length >= 60)
  const heardAtA = concat(framesA.slice(30, 60))
  const heardAtB = concat(framesB.slice(30, 60))
  return {
    aHearsB: toneLevelDb(heardAtA, 1000, 16000) - toneLevelDb(heardAtA, 440, 16000),
    bHearsA: toneLevelDb(heardAtB, 440, 16000) - toneLevelDb(heardAtB, 1000, 16000),
    levelAtA: toneLevelDb(heardAtA, 1000, 16000),
    levelAtB: toneLevelDb(heardAtB, 440, 16000),
  }
}

describe('MediaEngine', () => {
  test('start-up repairs a crashed recording; a call records to DATA_DIR/recordings/<id>.wav and finalises at hang-up', async () => {
    const { e, dataDir } = engine(0)
    mkdirSync(join(dataDir, 'recordings'))
    const crashed = join(dataDir, 'recordings', 'old.wav')
    writeFileSync(crashed, Buffer.concat([Buffer.from(wavHeader(16000, 2, 0)), Buffer.alloc(4000)]))
    expect((await e.start()).repaired).toEqual([crashed])
    const { e: peer } = engine(40, { MEDIA_CODECS: 'PCMA' })
    await peer.start()
    const { callA, callB, framesA, framesB, until, codec } = await connect(e, peer, 'call_1', 'peer_1')
    expect(codec).toBe('PCMA')
    const path = join(dataDir, 'recordings', 'call_1.wav')
    expect(existsSync(path)).toBe(true)
    const heard = await toneBothWays(callA, callB, framesA, framesB, until)
    expect(heard.aHearsB).toBeGreaterThan(20)
    expect(heard.bHearsA).toBeGreaterThan(20)
    const { recording } = await callA.close()
    await callB.close()
    expect(recording?.path).toBe(path)
    const wav = readStereoWav(path)
    expect(statSync(path).size).toBe(44 + wav.left.length * 4)
    // Caller (left) hears the peer's 1 kHz, agent (right) holds our 440 Hz, over the same span.
    expect(toneLevelDb(wav.left, 1000, 16000, 12000, 18000)).toBeGreaterThan(-30)
    expect(toneLevelDb(wav.right, 440, 16000, 8000, 16000)).toBeGreaterThan(-20)
    expect(recording!.durationMs).toBeGreaterThanOrEqual(framesA.length * 20 - 40)
    expect(e.activeCalls).toBe(0)
    expect(e.pool.used).toBe(0)
  })

  test.if(opusAvailable())('Opus both ways: each end hears the tone the other plays', async () => {
    const { e: a } = engine(80, { MEDIA_CODECS: 'opus,PCMU', RECORD_CALLS: false })
    const { e: b } = engine(120, { MEDIA_CODECS: 'opus,PCMU', RECORD_CALLS: false })
    const { callA, callB, framesA, framesB, until, codec } = await connect(a, b, 'opus_a', 'opus_b')
    expect(codec).toBe('opus')
    const heard = await toneBothWays(callA, callB, framesA, framesB, until)
    expect(heard.levelAtA).toBeGreaterThan(-30)
    expect(heard.levelAtB).toBeGreaterThan(-30)
    expect(heard.aHearsB).toBeGreaterThan(20)
    expect(heard.bHearsA).toBeGreaterThan(20)
    const stats = callA.stats()
    expect(stats.rtp.packetsReceived).toBeGreaterThan(50)
  })

  test('rejects a call id that cannot be a file name, and unknown codecs in MEDIA_CODECS', async () => {
    const { e } = engine(160)
    await e.start()
    const ports = await e.allocatePorts()
    await expect(e.startCall('../evil', ports, {} as never)).rejects.toThrow(RangeError)
    ports.release()
    expect(() => engine(180, { MEDIA_CODECS: 'G729' })).toThrow(RangeError)
    expect(() => engine(180, { MEDIA_PTIME_MS: 25 })).toThrow(RangeError)
  })
})

test("every datagram on a call's ports gives the media clock a chance to send what fell due", async () => {
  const { e } = engine(60)
  const ports = await e.allocatePorts()
  let calls = 0
  let arrived!: () => void
  const two = new Promise<void>((r) => (arrived = r))
  e.clock.sendDue = () => {
    if (++calls === 2) arrived()
  }
  const sender = await Bun.udpSocket({ hostname: '127.0.0.1' })
  sender.send(new Uint8Array([0x80, 0, 0, 1]), ports.port, '127.0.0.1')
  sender.send(new Uint8Array([0x81, 0xc9, 0, 1]), ports.port + 1, '127.0.0.1')
  await two
  sender.close()
  ports.release()
  expect(calls).toBe(2)
})
