// The calls of the media benchmark on one media engine: in the benchmark's own thread (the
// in-process path) or, loaded as a worker, in a thread of its own (as a call worker carries
// its calls: own sockets, own media clock). Driven by media-calls.ts.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { tone } from '../../src/realtime/media/codec/index.ts'
import { MediaEngine, PacingHistogram, type BoundPorts, type CallMedia } from '../../src/realtime/media/index.ts'
import type { RtpSrtpKeys } from '../../src/realtime/media/rtp/index.ts'
import type { NegotiatedMedia } from '../../src/realtime/telephony/sdp/index.ts'
import { loopbackPcmu } from '../../test/helpers/loopback-media.ts'

export interface HostFigures {
  pacing: ReturnType<PacingHistogram['toJSON']>
  received: number
  lost: number
  /** Incoming SRTP packets dropped as forged, replayed or malformed (0 without SRTP). */
  srtpRefused: number
  clock: { lateP99: number; busyP99: number; busyMax: number; sendP99: number }
}

export class CallsHost {
  private engine?: MediaEngine
  private dataDir = ''
  private ports: BoundPorts[] = []
  private calls: CallMedia[] = []

  async open(n: number, rtp: { min: number; max: number }): Promise<number[]> {
    this.dataDir = mkdtempSync(join(tmpdir(), 'bench-media-'))
    this.engine = new MediaEngine({ RTP_PORT_MIN: rtp.min, RTP_PORT_MAX: rtp.max, DATA_DIR: this.dataDir, RECORD_CALLS: process.env.BENCH_RECORD !== '0', MEDIA_PACER: process.env.MEDIA_PACER ?? 'off' }, { bindHost: '127.0.0.1' })
    await this.engine.start()
    this.ports = await Promise.all(Array.from({ length: n }, () => this.engine!.allocatePorts()))
    return this.ports.map((p) => p.port)
  }

  /** `srtp`: per call, the SDES keys of an SRTP call (send = ours); plain RTP without. */
  async start(peerPorts: number[], srtp?: RtpSrtpKeys[]): Promise<void> {
    const agentAudio = tone(440, 16000, 16000 * 60, 6000)
    for (let i = 0; i < this.ports.length; i++) {
      // the negotiated media as the SDP layer hands it over, with the SDES keys when SRTP was agreed
      const over = (srtp ? { srtp: srtp[i]! } : {}) as unknown as Partial<NegotiatedMedia>
      const call = await this.engine!.startCall(`bench_${this.ports[i]!.port}`, this.ports[i]!, loopbackPcmu(peerPorts[i]!, over), { onAudio: () => {} })
      call.play(agentAudio)
      this.calls.push(call)
    }
  }

  reset(): void {
    for (const c of this.calls) c.pacingHistogram.reset()
    const clock = this.engine!.clock
    clock.lateness.reset()
    clock.busy.reset()
    clock.sendPhase.reset()
  }

  figures(): HostFigures {
    const pacing = new PacingHistogram()
    for (const c of this.calls) pacing.merge(c.pacingHistogram)
    const clock = this.engine!.clock
    return {
      pacing: pacing.toJSON(),
      received: this.calls.reduce((s, c) => s + c.stats().rtp.packetsReceived, 0),
      lost: this.calls.reduce((s, c) => s + c.stats().jitter.lost + c.stats().jitter.late, 0),
      srtpRefused: this.calls.reduce((s, c) => {
        const r = c.stats().rtp.srtp
        return s + (r ? r.authFailures + r.replays + r.malformed : 0)
      }, 0),
      clock: { lateP99: clock.lateness.percentile(99), busyP99: clock.busy.percentile(99), busyMax: clock.busy.maxMs, sendP99: clock.sendPhase.percentile(99) },
    }
  }

  async stop(): Promise<void> {
    await this.engine?.stop()
    this.calls = []
    rmSync(this.dataDir, { recursive: true, force: true })
  }
}

type Request = { id: number; cmd: 'open'; n: number; rtp: { min: number; max: number } } | { id: number; cmd: 'start'; peerPorts: number[]; srtp?: RtpSrtpKeys[] } | { id: number; cmd: 'reset' | 'figures' | 'stop' }

declare const self: Worker
if (!Bun.isMainThread) {
  const host = new CallsHost()
  self.onmessage = async (ev: MessageEvent<Request>) => {
    const m = ev.data
    const value = m.cmd === 'open' ? await host.open(m.n, m.rtp) : m.cmd === 'start' ? await host.start(m.peerPorts, m.srtp) : m.cmd === 'reset' ? host.reset() : m.cmd === 'figures' ? host.figures() : await host.stop()
    self.postMessage({ id: m.id, value })
  }
  // messages posted before a worker's module graph has loaded are lost: the host says when it listens
  self.postMessage({ id: 0, value: 'listening' })
}

/** A CallsHost in a worker thread, with the same methods. */
export class WorkerCallsHost {
  private readonly worker = new Worker(new URL('./media-calls-host.ts', import.meta.url))
  private next = 1
  private readonly waiting = new Map<number, (v: any) => void>()
  private readonly listening = new Promise((resolve) => this.waiting.set(0, resolve))

  constructor() {
    // a worker that fails to load would leave every question unanswered: stop the run instead
    this.worker.onerror = (ev) => {
      console.error(`media-calls-host worker failed: ${ev.message}`)
      process.exit(1)
    }
    this.worker.onmessage = (ev: MessageEvent<{ id: number; value: unknown }>) => {
      this.waiting.get(ev.data.id)?.(ev.data.value)
      this.waiting.delete(ev.data.id)
    }
  }

  private async ask<T>(m: Record<string, unknown>): Promise<T> {
    await this.listening
    const id = this.next++
    return new Promise((resolve) => {
      this.waiting.set(id, resolve)
      this.worker.postMessage({ id, ...m })
    })
  }

  open = (n: number, rtp: { min: number; max: number }) => this.ask<number[]>({ cmd: 'open', n, rtp })
  start = (peerPorts: number[], srtp?: RtpSrtpKeys[]) => this.ask<void>({ cmd: 'start', peerPorts, srtp })
  reset = () => this.ask<void>({ cmd: 'reset' })
  figures = () => this.ask<HostFigures>({ cmd: 'figures' })
  stop = async () => {
    await this.ask<void>({ cmd: 'stop' })
    this.worker.terminate()
  }
}
