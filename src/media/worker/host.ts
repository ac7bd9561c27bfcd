// A media worker: an in-process MediaEngine on its own thread and event loop, driven by
// messages from the main thread's RemoteMediaCall proxies.

import type { CallMedia } from '../call/index.ts'
import type { MediaEngine } from '../engine.ts'
import type { BoundPorts } from '../rtp/index.ts'
import type { FromWorker, ToWorker } from './protocol.ts'

declare const self: Worker

// The codecs load wasm with a top-level await; messages arriving meanwhile wait here, since a
// worker drops messages that come before it has a handler.
const early: ToWorker[] = []
let ready = false
self.onmessage = (ev: MessageEvent<ToWorker>) => {
  if (ready) void handle(ev.data).catch((err) => console.error('media worker:', err))
  else early.push(ev.data)
}
const { MediaEngine: Engine } = await import('../engine.ts')

let engine: MediaEngine | undefined
const leases = new Map<number, BoundPorts>()
const calls = new Map<number, { call: CallMedia; pids: Map<number, number> }>()
let batchCids: number[] = []
let batchFrames: Int16Array[] = []
let flushQueued = false

const post = (msg: FromWorker, transfer: ArrayBuffer[] = []) => self.postMessage(msg, transfer)

function flushBatch(): void {
  flushQueued = false
  const n = batchFrames.length
  const frames = new Int16Array(n * 320)
  batchFrames.forEach((f, i) => frames.set(f, i * 320))
  const progress: number[] = []
  for (const [cid, { call, pids }] of calls) {
    const current = call.currentPlayback
    if (current) progress.push(cid, call.queuedMs, pids.get(current.id) ?? 0, current.playedMs)
  }
  post({ type: 'tick', cids: Int32Array.from(batchCids), frames, progress }, [frames.buffer])
  batchCids = []
  batchFrames = []
}

function onFrame(cid: number, frame: Int16Array): void {
  batchCids.push(cid)
  batchFrames.push(frame)
  if (!flushQueued) {
    flushQueued = true
    queueMicrotask(flushBatch)
  }
}

setInterval(() => {
  const cids = [...calls.keys()]
  if (cids.length) post({ type: 'stats', cids, stats: cids.map((c) => calls.get(c)!.call.stats()) })
}, 1000)

async function handle(msg: ToWorker): Promise<void> {
  switch (msg.type) {
    case 'init':
      engine = new Engine({ ...msg.config, MEDIA_WORKERS: 0 }, { bindHost: msg.bindHost })
      return
    case 'allocate': {
      try {
        const ports = await engine!.pool.bind()
        leases.set(ports.port, ports)
        post({ type: 'reply', req: msg.req, port: ports.port })
      } catch (err) {
        post({ type: 'reply', req: msg.req, error: (err as Error).message })
      }
      return
    }
    case 'release':
      leases.get(msg.port)?.release()
      leases.delete(msg.port)
      return
    case 'start': {
      const ports = leases.get(msg.port)
      try {
        if (!ports) throw new Error(`port ${msg.port} is not allocated in this worker`)
        const call = (await engine!.startCall(msg.callId, ports, msg.media, {
          ...msg.options,
          onAudio: (f) => onFrame(msg.cid, f),
          onDtmf: (event) => post({ type: 'dtmf', cid: msg.cid, event }),
          onBye: () => post({ type: 'bye', cid: msg.cid }),
        })) as CallMedia
        leases.delete(msg.port)
        calls.set(msg.cid, { call, pids: new Map() })
        post({ type: 'reply', req: msg.req })
      } catch (err) {
        post({ type: 'reply', req: msg.req, error: (err as Error).message })
      }
      return
    }
    case 'play': {
      const entry = calls.get(msg.cid)
      if (!entry) return post({ type: 'played', cid: msg.cid, pid: msg.pid, result: { playedMs: 0, interrupted: true } })
      const h = entry.call.play(msg.pcm)
      entry.pids.set(h.id, msg.pid)
      void h.done.then((result) => {
        entry.pids.delete(h.id)
        post({ type: 'played', cid: msg.cid, pid: msg.pid, result })
      })
      return
    }
    case 'flush':
      calls.get(msg.cid)?.call.flush()
      return
    case 'dtmf':
      calls.get(msg.cid)?.call.sendDtmf(msg.digits, msg.durationMs)
      return
    case 'update':
      calls.get(msg.cid)?.call.update(msg.media)
      return
    case 'close': {
      const entry = calls.get(msg.cid)
      calls.delete(msg.cid)
      try {
        if (!entry) throw new Error('call media already closed')
        post({ type: 'reply', req: msg.req, result: await entry.call.close() })
      } catch (err) {
        post({ type: 'reply', req: msg.req, error: (err as Error).message })
      }
    }
  }
}

// In order: init must finish before the requests queued behind it.
while (early.length > 0) await handle(early.shift()!).catch((err) => console.error('media worker:', err))
ready = true
