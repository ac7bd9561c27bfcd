// Builds a CallMedia against an RtpPeer on 127.0.0.1, with hooks tests can await.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { CallMedia, MediaClock, RtpPortPool, StereoRecorder, type DtmfEvent } from '../../src/realtime/media/index.ts'
import type { Pacer } from '../../src/realtime/media/pacer/index.ts'
import { parseWavHeader } from '../../src/realtime/media/recorder/index.ts'
import type { NegotiatedMedia } from '../../src/realtime/telephony/sdp/index.ts'
import { loopbackPcmu } from './loopback-media.ts'
import { tempDir } from './tmp.ts'

const BASE = 44000 + 2 * Math.floor(Math.random() * 2000)
const pool = new RtpPortPool(BASE, BASE + 400, '127.0.0.1')
const clock = new MediaClock()

/**
 * Grid steps the media clock has skipped so far: it skips ahead rather than burst after a stall of
 * more than 30 ms (a slow or busy machine), which leaves a gap in the timestamps by design.
 */
export const clockSkips = (): number => clock.skippedTicks

export interface TestCall {
  call: CallMedia
  media: NegotiatedMedia
  dtmf: DtmfEvent[]
  frames: Int16Array[]
  /** Resolves after `n` more 20 ms frames have been played out (the media clock as a timer). */
  afterFrames(n: number): Promise<void>
  recordingPath: string
}

export async function startTestCall(peerPort: number, over: Partial<NegotiatedMedia> = {}, jitter?: { minDelayMs?: number; maxDelayMs?: number }, pacer?: Pacer): Promise<TestCall> {
  const ports = await pool.bind()
  const media = loopbackPcmu(peerPort, over)
  const dir = tempDir('media-call-')
  const recordingPath = join(dir, 'call.wav')
  const recorder = await StereoRecorder.create(recordingPath)
  const dtmf: DtmfEvent[] = []
  const frames: Int16Array[] = []
  let waiters: { at: number; resolve: () => void }[] = []
  const call = new CallMedia({
    ports,
    clock,
    pacer,
    media,
    recorder,
    jitter,
    onDtmf: (e) => dtmf.push(e),
    onAudio: (f) => {
      frames.push(f)
      waiters = waiters.filter((w) => (frames.length >= w.at ? (w.resolve(), false) : true))
    },
  })
  return {
    call,
    media,
    dtmf,
    frames,
    recordingPath,
    afterFrames: (n) => new Promise((resolve) => waiters.push({ at: frames.length + n, resolve })),
  }
}

/** Least-squares slope of `ys` against their index: the period of packets from their arrival times. */
export function slope(ys: number[]): number {
  const mx = (ys.length - 1) / 2
  const my = ys.reduce((a, b) => a + b, 0) / ys.length
  let num = 0
  let den = 0
  ys.forEach((y, i) => {
    num += (i - mx) * (y - my)
    den += (i - mx) ** 2
  })
  return num / den
}

export function readStereoWav(path: string): { left: Int16Array; right: Int16Array; sampleRate: number } {
  const bytes = new Uint8Array(readFileSync(path))
  const info = parseWavHeader(bytes.subarray(0, 44))
  if (!info || info.channels !== 2) throw new Error('not a stereo recording')
  const pcm = new Int16Array(bytes.buffer.slice(44, 44 + info.dataBytes))
  const n = pcm.length / 2
  const left = new Int16Array(n)
  const right = new Int16Array(n)
  for (let i = 0; i < n; i++) {
    left[i] = pcm[2 * i]!
    right[i] = pcm[2 * i + 1]!
  }
  return { left, right, sampleRate: info.sampleRate }
}

/** Best normalised cross-correlation of `b` against `a` over lags 0..maxLag (b delayed). */
export function bestCorrelation(a: Int16Array, b: Int16Array, maxLag: number, step = 1): { r: number; lag: number } {
  let best = { r: -1, lag: 0 }
  for (let lag = 0; lag <= maxLag; lag += step) {
    const n = Math.min(a.length, b.length - lag)
    let ab = 0
    let aa = 0
    let bb = 0
    for (let i = 0; i < n; i++) {
      const x = a[i]!
      const y = b[i + lag]!
      ab += x * y
      aa += x * x
      bb += y * y
    }
    const r = ab / Math.sqrt(aa * bb || 1)
    if (r > best.r) best = { r, lag }
  }
  return best
}
