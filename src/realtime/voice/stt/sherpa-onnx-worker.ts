// Runs sherpa-onnx off the main thread: its decode calls are synchronous native code (tens of ms
// per chunk for a real model), which would otherwise stall every call's audio on the event loop.
import type { SherpaModel } from './sherpa-model.ts'
import { createRecognizer, type Offline, type Online, type OnlineStream, SHERPA_RATE } from './sherpa-onnx-runtime.ts'

export type SherpaRequest =
  | { op: 'init'; model: SherpaModel; numThreads: number; endpointingMs: number }
  | { op: 'open'; id: number }
  /** 16 kHz samples in [-1, 1]. */
  | { op: 'audio'; id: number; samples: Float32Array }
  | { op: 'end'; id: number }
  | { op: 'drop'; id: number }

export type SherpaReply =
  | { op: 'ready'; version: string }
  | { op: 'failed'; error: string }
  | { op: 'interim'; id: number; text: string }
  | { op: 'final'; id: number; text: string; startMs: number; endMs: number; endOfTurn: boolean }
  | { op: 'done'; id: number; audioMs: number }
  | { op: 'error'; id: number; error: string }

/** Longest utterance an offline model is given (whisper itself stops at 30 s). */
export const MAX_OFFLINE_UTTERANCE_MS = 60_000

interface Open {
  samples: number
  /** streaming: the native stream; offline: the audio so far. */
  online?: OnlineStream
  chunks: Float32Array[]
  lastText: string
  segmentStartMs: number
}

declare const self: Worker
const post = (r: SherpaReply) => self.postMessage(r)
let online: Online | undefined
let offline: Offline | undefined
const streams = new Map<number, Open>()

self.onmessage = (ev: MessageEvent<SherpaRequest>) => {
  const msg = ev.data
  if (msg.op === 'init') return init(msg)
  if (msg.op === 'open') {
    streams.set(msg.id, { samples: 0, online: online?.createStream(), chunks: [], lastText: '', segmentStartMs: 0 })
    return
  }
  const s = streams.get(msg.id)
  if (!s) return
  try {
    if (msg.op === 'drop') streams.delete(msg.id)
    else if (msg.op === 'audio') audio(msg.id, s, msg.samples)
    else if (msg.op === 'end') {
      streams.delete(msg.id)
      finish(msg.id, s)
    }
  } catch (err) {
    streams.delete(msg.id)
    post({ op: 'error', id: msg.id, error: (err as Error).message })
  }
}

function init(msg: Extract<SherpaRequest, { op: 'init' }>): void {
  try {
    const r = createRecognizer(msg.model, msg.numThreads, msg.endpointingMs)
    online = r.online
    offline = r.offline
    post({ op: 'ready', version: r.version })
  } catch (err) {
    post({ op: 'failed', error: (err as Error).message })
  }
}

function audio(id: number, s: Open, samples: Float32Array): void {
  s.samples += samples.length
  if (!s.online) {
    if ((s.samples * 1000) / SHERPA_RATE > MAX_OFFLINE_UTTERANCE_MS) throw new Error(`utterance longer than ${MAX_OFFLINE_UTTERANCE_MS} ms`)
    s.chunks.push(samples)
    return
  }
  s.online.acceptWaveform({ samples, sampleRate: SHERPA_RATE })
  decodeOnline(id, s, false)
}

function decodeOnline(id: number, s: Open, last: boolean): void {
  const rec = online!
  const stream = s.online!
  while (rec.isReady(stream)) rec.decode(stream)
  const text = rec.getResult(stream).text.trim()
  const nowMs = Math.round((s.samples * 1000) / SHERPA_RATE)
  if (rec.isEndpoint(stream) || last) {
    if (text) post({ op: 'final', id, text, startMs: s.segmentStartMs, endMs: nowMs, endOfTurn: true })
    rec.reset(stream)
    s.lastText = ''
    s.segmentStartMs = nowMs
  } else if (text !== s.lastText) {
    if (text) post({ op: 'interim', id, text })
    s.lastText = text
  }
}

function finish(id: number, s: Open): void {
  const audioMs = Math.round((s.samples * 1000) / SHERPA_RATE)
  if (s.online) {
    // flush the model's look-ahead so the last words are decoded
    s.online.acceptWaveform({ samples: new Float32Array(SHERPA_RATE / 2), sampleRate: SHERPA_RATE })
    s.online.inputFinished()
    decodeOnline(id, s, true)
  } else if (s.samples > 0) {
    const all = new Float32Array(s.samples)
    let o = 0
    for (const c of s.chunks) {
      all.set(c, o)
      o += c.length
    }
    const stream = offline!.createStream()
    stream.acceptWaveform({ samples: all, sampleRate: SHERPA_RATE })
    offline!.decode(stream)
    const text = offline!.getResult(stream).text.trim()
    if (text) post({ op: 'final', id, text, startMs: 0, endMs: audioMs, endOfTurn: true })
  }
  post({ op: 'done', id, audioMs })
}
