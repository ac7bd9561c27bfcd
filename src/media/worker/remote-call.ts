// The main thread's side of a media worker: a client that owns the Worker, and one
// RemoteMediaCall proxy per call with the same surface as CallMedia. Calls that need an answer
// from the worker (flush results, queue length, stats) answer from mirrors the worker refreshes
// every media tick (stats every second); each handle's `done` carries the exact figures.

import type { NegotiatedMedia } from '../../telephony/sdp/index.ts'
import type { CallMediaStats, MediaCall } from '../call/index.ts'
import type { PlaybackHandle, PlaybackResult } from '../call/output-queue.ts'
import { isDtmfDigit, type DtmfEvent } from '../dtmf/index.ts'
import type { MediaEngineConfig } from '../engine.ts'
import type { FromWorker, StartOptions, ToWorker } from './protocol.ts'

export interface RemoteLease {
  readonly port: number
  readonly client: MediaWorkerClient
  release(): void
}

interface Callbacks {
  onAudio?: (frame: Int16Array) => void
  onDtmf?: (event: DtmfEvent) => void
  onBye?: () => void
  onClosed?: () => void
}

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never
type Pending = { resolve: (r: { port?: number; result?: unknown }) => void; reject: (e: Error) => void }

export class MediaWorkerClient {
  private readonly worker: Worker
  private nextReq = 1
  private nextCid = 1
  private readonly pending = new Map<number, Pending>()
  readonly calls = new Map<number, RemoteMediaCall>()
  /** Ports handed out and not yet started or released (for load balancing). */
  leased = 0

  constructor(config: MediaEngineConfig, bindHost: string) {
    this.worker = new Worker(new URL('./host.ts', import.meta.url).href)
    this.worker.onmessage = (ev: MessageEvent<FromWorker>) => this.onMessage(ev.data)
    this.send({ type: 'init', config, bindHost })
  }

  get load(): number {
    return this.calls.size + this.leased
  }

  send(msg: ToWorker, transfer: ArrayBuffer[] = []): void {
    this.worker.postMessage(msg, transfer)
  }

  request(msg: DistributiveOmit<Extract<ToWorker, { req: number }>, 'req'>): Promise<{ port?: number; result?: unknown }> {
    const req = this.nextReq++
    return new Promise((resolve, reject) => {
      this.pending.set(req, { resolve, reject })
      this.send({ ...msg, req } as ToWorker)
    })
  }

  async allocate(): Promise<RemoteLease> {
    this.leased++
    try {
      const { port } = await this.request({ type: 'allocate' })
      let released = false
      return {
        port: port!,
        client: this,
        release: () => {
          if (released) return
          released = true
          this.leased--
          this.send({ type: 'release', port: port! })
        },
      }
    } catch (err) {
      this.leased--
      throw err
    }
  }

  async startCall(callId: string, lease: RemoteLease, media: NegotiatedMedia, options: StartOptions & Callbacks): Promise<RemoteMediaCall> {
    const cid = this.nextCid++
    const { onAudio, onDtmf, onBye, onClosed, ...startOptions } = options
    const call = new RemoteMediaCall(this, cid, lease.port, media, { onAudio, onDtmf, onBye, onClosed })
    this.calls.set(cid, call)
    try {
      await this.request({ type: 'start', cid, callId, port: lease.port, media, options: startOptions })
    } catch (err) {
      this.calls.delete(cid)
      throw err
    }
    this.leased--
    return call
  }

  terminate(): void {
    this.worker.terminate()
  }

  private onMessage(msg: FromWorker): void {
    switch (msg.type) {
      case 'reply': {
        const p = this.pending.get(msg.req)
        this.pending.delete(msg.req)
        if (msg.error !== undefined) p?.reject(new Error(msg.error))
        else p?.resolve({ port: msg.port, result: msg.result })
        return
      }
      case 'tick': {
        const busy = new Set<number>()
        for (let i = 0; i < msg.progress.length; i += 4) {
          busy.add(msg.progress[i]!)
          this.calls.get(msg.progress[i]!)?.mirrorQueue(msg.progress[i + 1]!, msg.progress[i + 2]!, msg.progress[i + 3]!)
        }
        for (const [cid, call] of this.calls) if (!busy.has(cid)) call.mirrorIdle()
        for (let i = 0; i < msg.cids.length; i++) this.calls.get(msg.cids[i]!)?.deliver(msg.frames.subarray(i * 320, (i + 1) * 320))
        return
      }
      case 'played':
        this.calls.get(msg.cid)?.played(msg.pid, msg.result)
        return
      case 'dtmf':
        this.calls.get(msg.cid)?.callbacks.onDtmf?.(msg.event)
        return
      case 'bye':
        this.calls.get(msg.cid)?.callbacks.onBye?.()
        return
      case 'stats':
        msg.cids.forEach((cid, i) => this.calls.get(cid)?.mirrorStats(msg.stats[i]!))
    }
  }
}

interface RemoteHandle extends PlaybackHandle {
  playedMs: number
  resolve: (r: PlaybackResult) => void
}

const EMPTY_STATS: CallMediaStats = {
  rtp: { ssrc: 0, packetsSent: 0, octetsSent: 0, packetsReceived: 0, packetsLost: 0, fractionLost: 0, jitterMs: 0, rejectedPackets: 0, malformedPackets: 0, sendErrors: 0 },
  jitter: { received: 0, played: 0, lost: 0, late: 0, duplicates: 0, dropped: 0, underruns: 0, resets: 0, jitterMs: 0, targetDelayMs: 0, currentDelayMs: 0, maxDelayMs: 0 },
  pacing: { packets: 0, p50Ms: 0, p99Ms: 0, maxMs: 0 },
  ignoredPackets: 0,
}

export class RemoteMediaCall implements MediaCall {
  private nextPid = 1
  private readonly handles = new Map<number, RemoteHandle>()
  private queued = 0
  private lastStats = EMPTY_STATS
  private closed = false

  constructor(
    private readonly client: MediaWorkerClient,
    private readonly cid: number,
    readonly localPort: number,
    private media: NegotiatedMedia,
    readonly callbacks: Callbacks,
  ) {}

  play(pcm16k: Int16Array): PlaybackHandle {
    const pid = this.nextPid++
    let resolve!: (r: PlaybackResult) => void
    const done = new Promise<PlaybackResult>((r) => (resolve = r))
    const handle: RemoteHandle = { id: pid, durationMs: (pcm16k.length / 16000) * 1000, playedMs: 0, done, resolve }
    if (this.closed || pcm16k.length === 0) {
      resolve({ playedMs: 0, interrupted: !!this.closed })
      return handle
    }
    this.handles.set(pid, handle)
    this.queued += handle.durationMs
    const copy = pcm16k.slice()
    this.client.send({ type: 'play', cid: this.cid, pid, pcm: copy }, [copy.buffer])
    return handle
  }

  flush(): PlaybackResult[] {
    this.client.send({ type: 'flush', cid: this.cid })
    this.queued = 0
    return [...this.handles.values()].map((h) => ({ playedMs: h.playedMs, interrupted: true }))
  }

  get queuedMs(): number {
    return this.queued
  }

  sendDtmf(digits: string, durationMs = 100): void {
    if (this.closed) throw new Error('call media is closed')
    if (digits.length === 0 || ![...digits].every(isDtmfDigit)) throw new RangeError(`not DTMF digits: ${JSON.stringify(digits)}`)
    this.client.send({ type: 'dtmf', cid: this.cid, digits, durationMs })
  }

  injectDtmf(digit: string, durationMs = 100): void {
    if (!isDtmfDigit(digit)) throw new RangeError(`not a DTMF digit: ${JSON.stringify(digit)}`)
    this.callbacks.onDtmf?.({ digit: digit.toUpperCase(), durationMs, source: 'sip-info' })
  }

  update(media: NegotiatedMedia): void {
    if (this.closed) throw new Error('call media is closed')
    this.media = media
    this.client.send({ type: 'update', cid: this.cid, media })
  }

  stats(): CallMediaStats {
    return this.lastStats
  }

  async close(): Promise<{ recording?: { path: string; durationMs: number }; stats: CallMediaStats }> {
    if (this.closed) throw new Error('call media already closed')
    this.closed = true
    try {
      const { result } = await this.client.request({ type: 'close', cid: this.cid })
      const r = result as { recording?: { path: string; durationMs: number }; stats: CallMediaStats }
      this.lastStats = r.stats
      return r
    } finally {
      for (const h of this.handles.values()) h.resolve({ playedMs: h.playedMs, interrupted: true })
      this.handles.clear()
      this.client.calls.delete(this.cid)
      this.callbacks.onClosed?.()
    }
  }

  deliver(frame: Int16Array): void {
    this.callbacks.onAudio?.(frame)
  }

  mirrorQueue(queuedMs: number, pid: number, playedMs: number): void {
    this.queued = queuedMs
    const h = this.handles.get(pid)
    if (h) h.playedMs = playedMs
  }

  /** The worker's queue is empty; items posted since may not have reached it yet. */
  mirrorIdle(): void {
    if (this.handles.size === 0) this.queued = 0
  }

  mirrorStats(stats: CallMediaStats): void {
    this.lastStats = stats
  }

  played(pid: number, result: PlaybackResult): void {
    const h = this.handles.get(pid)
    if (!h) return
    this.handles.delete(pid)
    h.playedMs = result.playedMs
    h.resolve(result)
  }
}
