// Decodes utterances off the main thread, as their audio arrives: feeding costs ~0.12 s per second
// of audio and ending a dictation utterance ~0.1 s, which would otherwise stall every call's audio
// on the event loop. Each open utterance holds a decoder of the pool for its kind until it ends.
import { BandMeter, type LineBand } from './pocketsphinx-band.ts'
import { DecodeLoadMeter } from './pocketsphinx-load.ts'
import { startingMean } from './pocketsphinx-cmn.ts'
import { type AgentLmFiles, loadNative, SphinxDecoder, type SphinxMode, trimHeap } from './pocketsphinx-ffi.ts'
import { DecoderPool } from './pocketsphinx-pool.ts'
import { DecodeTurns, TurnPump } from './pocketsphinx-turns.ts'

export interface SphinxKind {
  mode: SphinxMode
  modelDir: string
  /** Decoders of this kind the pool may hold at once (each dictation decoder is ~90 MB). */
  maxDecoders: number
  /** An agent's own model, mixed with the general one (a pool of its own). */
  agentLm?: AgentLmFiles
}

/** Stream ids are the sender's own: each thread that talks to the worker numbers its streams. */
export type SphinxRequest =
  /** `narrowband`: the caller's audio came at 8 kHz or less (a phone line). */
  | ({ op: 'open'; sid: number; narrowband: boolean } & SphinxKind)
  /** 16 kHz samples; `audioMs`: the caller's audio up to the end of these samples. */
  | { op: 'audio'; sid: number; samples: Int16Array; audioMs: number }
  /** The last samples (maybe none) and the end of the utterance. */
  | { op: 'end'; sid: number; samples: Int16Array; audioMs: number }
  | { op: 'drop'; sid: number }
  /** Makes a decoder of this kind now when there is none (the model loads in 0.1-0.3 s); answered with `loaded`. */
  | ({ op: 'load'; sid: number } & SphinxKind)

export type SphinxReply =
  /** The decoder has consumed the audio up to `audioMs`; `interim`: the words so far, when they changed. */
  | { op: 'fed'; sid: number; audioMs: number; interim?: string }
  /** `framesAfterEnd`: 10 ms frames of audio still to decode when the end arrived (0: the decoder was caught up). */
  | { op: 'final'; sid: number; text: string; framesAfterEnd: number }
  | { op: 'error'; sid: number; error: string }
  /** The answer to `load`: a decoder of the kind is in memory, or `error` says why none can be made. */
  | { op: 'loaded'; sid: number; error?: string }
  /** To the thread that started the worker, once a second while it decodes (and once after): whether it keeps up. */
  | { op: 'load'; sid: 0; realTimeFactor: number; backlogMs: number }

/** Frees every decoder not in use (the en-us model is about 90 MB of native memory each). */
export interface SphinxRelease {
  release: true
}

/** Asks the worker to also take requests from another thread on `attach` (a call worker sharing it). */
export interface SphinxAttach {
  attach: MessagePort
}

/** Audio between two looks at the words so far (160 ms at 16 kHz). */
const INTERIM_EVERY_SAMPLES = 2560
/** Audio held back at most (1 s) to tell the line's band before the utterance starts. */
const BAND_AT_MOST_SAMPLES = 16000
/** Audio of a talking caller decoded in one turn (200 ms, ~30 ms of a core) before the next utterance's turn. */
const SLICE_SAMPLES = 3200

interface Utterance {
  sid: number
  client: Client
  pool: DecoderPool<SphinxDecoder>
  /** Known once enough loud audio arrived (at once for audio that came at 8 kHz). */
  band?: LineBand
  meter: BandMeter
  decoder?: SphinxDecoder
  cancelWait: () => void
  queued: { samples: Int16Array; audioMs: number }[]
  queuedSamples: number
  started: boolean
  ended: boolean
  framesAfterEnd: number
  sinceInterim: number
  lastInterim: string
}

interface Client {
  post(r: SphinxReply): void
  utterances: Map<number, Utterance>
}

const pools = new Map<string, DecoderPool<SphinxDecoder>>()
const turns = new DecodeTurns<Utterance>()
const pump = new TurnPump(turns, (u) => advance(u.client, u))
/** Every open utterance of every client, for the backlog. */
const open = new Set<Utterance>()
const meter = new DecodeLoadMeter(performance.now())

/** Decodes `u` in its turn, ahead of callers still talking once it ended. */
function schedule(u: Utterance): void {
  if (!u.decoder || !(u.started || knowsBand(u))) return
  turns.add(u, u.ended)
  pump.wake()
}

function poolFor(kind: SphinxKind): DecoderPool<SphinxDecoder> {
  const key = `${kind.mode}\0${kind.modelDir}\0${kind.agentLm ? JSON.stringify(kind.agentLm) : ''}`
  let pool = pools.get(key)
  if (!pool) {
    pool = new DecoderPool(
      () => {
        const n = loadNative()
        if (!n) throw new Error('pocketsphinx libraries are not installed')
        return SphinxDecoder.create(n, kind.mode, kind.modelDir, { agentLm: kind.agentLm })
      },
      (d) => d.free(),
      kind.maxDecoders,
    )
    pools.set(key, pool)
  }
  pool.cap = Math.max(1, kind.maxDecoders)
  return pool
}

function handle(client: Client, m: SphinxRequest): void {
  if (m.op === 'load') {
    try {
      poolFor(m).warm()
      client.post({ op: 'loaded', sid: m.sid })
    } catch (err) {
      client.post({ op: 'loaded', sid: m.sid, error: (err as Error).message })
    }
    return
  }
  if (m.op === 'open') return opened(client, m)
  const u = client.utterances.get(m.sid)
  if (!u) return
  if (m.op === 'drop') return finished(client, u)
  if (m.op === 'end') {
    u.ended = true
    u.framesAfterEnd = Math.ceil((u.queuedSamples + m.samples.length) / 160)
  }
  u.queued.push({ samples: m.samples, audioMs: m.audioMs })
  u.queuedSamples += m.samples.length
  meter.arrived(m.samples.length)
  if (!u.band) {
    u.meter.push(m.samples)
    u.band = u.meter.band
  }
  schedule(u)
}

function opened(client: Client, m: Extract<SphinxRequest, { op: 'open' }>): void {
  const u: Utterance = {
    sid: m.sid,
    client,
    pool: poolFor(m),
    band: m.narrowband ? 'phone' : undefined,
    meter: new BandMeter(),
    cancelWait: () => {},
    queued: [],
    queuedSamples: 0,
    started: false,
    ended: false,
    framesAfterEnd: 0,
    sinceInterim: 0,
    lastInterim: '',
  }
  client.utterances.set(m.sid, u)
  open.add(u)
  try {
    u.cancelWait = u.pool.borrow((d) => {
      u.decoder = d
      schedule(u)
    })
  } catch (err) {
    fail(client, u, err)
  }
}

/** Feeds what is queued (a slice of it while the caller talks) once the utterance has a decoder and its line's band is known. */
function advance(client: Client, u: Utterance): void {
  const d = u.decoder
  if (!d || client.utterances.get(u.sid) !== u) return
  const began = performance.now()
  let fed = 0
  try {
    if (!u.started) {
      if (!knowsBand(u)) return
      // a line too quiet to tell is most likely a phone's
      d.start(startingMean(u.band ?? 'phone'))
      u.started = true
    }
    let audioMs: number | undefined
    while (u.queued.length > 0 && (u.ended || fed < SLICE_SAMPLES)) {
      const q = u.queued.shift()!
      d.feed(q.samples)
      fed += q.samples.length
      u.sinceInterim += q.samples.length
      audioMs = q.audioMs
    }
    u.queuedSamples -= fed
    if (u.queued.length > 0) schedule(u)
    if (u.ended) {
      const text = d.finish()
      finished(client, u)
      client.post({ op: 'final', sid: u.sid, text, framesAfterEnd: u.framesAfterEnd })
      return
    }
    if (audioMs === undefined) return
    let interim: string | undefined
    if (u.sinceInterim >= INTERIM_EVERY_SAMPLES) {
      u.sinceInterim = 0
      const words = d.partial()
      if (words && words !== u.lastInterim) interim = u.lastInterim = words
    }
    client.post({ op: 'fed', sid: u.sid, audioMs, ...(interim ? { interim } : {}) })
  } catch (err) {
    fail(client, u, err)
  } finally {
    meter.worked(fed, performance.now() - began)
  }
}

/** Whether the utterance can start: its band is known, or it ended, or it held back the most it may. */
function knowsBand(u: Utterance): boolean {
  return u.band !== undefined || u.ended || u.queuedSamples >= BAND_AT_MOST_SAMPLES
}

/** The utterance is over: its decoder goes back to the pool (to a waiting utterance first). */
function finished(client: Client, u: Utterance): void {
  client.utterances.delete(u.sid)
  open.delete(u)
  turns.remove(u)
  u.cancelWait()
  const d = u.decoder
  u.decoder = undefined
  if (!d) return
  d.end()
  u.pool.giveBack(d)
}

function fail(client: Client, u: Utterance, err: unknown): void {
  finished(client, u)
  client.post({ op: 'error', sid: u.sid, error: (err as Error).message })
}

function serve(post: (r: SphinxReply) => void): Client {
  return { post, utterances: new Map() }
}

declare const self: Worker
const own = serve((r) => self.postMessage(r))
let reported = false
setInterval(() => {
  let backlog = 0
  for (const u of open) backlog = Math.max(backlog, u.queuedSamples)
  const load = meter.take(performance.now(), backlog)
  const busy = load.realTimeFactor > 0 || load.backlogMs > 0
  // an idle thread says so once, then nothing until it decodes again
  if (busy || reported) own.post({ op: 'load', sid: 0, ...load })
  reported = busy
}, 1000).unref?.()
self.onmessage = (ev: MessageEvent<SphinxRequest | SphinxAttach | SphinxRelease>) => {
  const m = ev.data
  if ('release' in m) {
    for (const pool of pools.values()) pool.trim()
    // pocketsphinx frees with free(); without a trim glibc keeps the pages for the next malloc
    trimHeap()
    return
  }
  if ('attach' in m) {
    const port = m.attach
    const client = serve((r) => port.postMessage(r))
    port.onmessage = (e) => handle(client, e.data as SphinxRequest)
    // the call worker on the other side stopped: its open utterances give their decoders back
    port.addEventListener('close', () => {
      for (const u of [...client.utterances.values()]) finished(client, u)
    })
    return
  }
  handle(own, m)
}
