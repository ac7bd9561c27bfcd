import type { ServerWebSocket } from 'bun'

/**
 * A local server speaking Deepgram's live transcription protocol: linear16 audio in over a
 * WebSocket, Results / SpeechStarted / UtteranceEnd / Metadata JSON out. It finds utterances
 * by loudness on the audio clock and answers each with the next scripted transcript.
 */
export interface FakeDeepgram {
  url: string
  /** Transcript for each utterance, in order; used up across connections. */
  utterances: string[]
  connections: { query: URLSearchParams; authorization: string | null }[]
  /** Milliseconds before each message is sent (provider latency). */
  delayMs: number
  /** Close the next connection with 1011 after this much audio (a dropped connection). */
  dropNextAfterMs?: number
  /** Close code used for a drop: 1011 (error) or 1000 (a normal close nobody asked for). */
  dropCode: number
  /** Send this raw text first on the next connection (malformed input). */
  garbageNext?: string
  /** Opt-in: each connection transcribes its own copy of these utterances, in order, instead of sharing `utterances`. */
  perConnection?: ScriptedUtterance[]
  /**
   * Opt-in: the provider's own delay: a final is sent this long (audio clock) after the last loud
   * frame, or after the `endpointing` silence the connection asked for when that is longer.
   */
  finalAfterMs?: number
  /** Speech resuming within this much silence after a final goes on with the same utterance (a pause inside a sentence); 600 ms unless set. */
  joinWithinMs?: number
  stop(): void
}

/**
 * An utterance of `perConnection`. With `wordStartsMs` (ms after the utterance's first loud
 * frame) words are transcribed as they are spoken: an interim once 200 ms of a word was heard, a
 * final at a pause with the words begun before it. Without, the first final has all the words.
 */
export interface ScriptedUtterance {
  text: string
  wordStartsMs?: number[]
}

interface Conn {
  rate: number
  endpointingMs: number
  utteranceEndMs: number
  samples: number
  frameAcc: number[]
  speaking: boolean
  speechStartMs: number
  lastVoiceMs: number
  silenceSinceFinal: number
  text: string
  words: string[]
  interimSent: number
  utteranceEndDue: number | undefined
  dropAfterMs: number | undefined
  script: ScriptedUtterance[] | undefined
  /** Audio time of the last final's last loud frame, the utterance's first loud frame, its words' starts and how many a final has sent. */
  finalEndMs: number | undefined
  utteranceStartMs: number
  wordStarts: number[] | undefined
  finalized: number
}

const FRAME_MS = 20
const THRESHOLD = 600
const WORD_HEARD_MS = 200

export function startFakeDeepgram(): FakeDeepgram {
  // speech resumed within 600 ms of a final goes on with the same utterance, as a caller's pause
  // inside a sentence does: the appliance asks for finals after 150 ms of silence
  const fake: FakeDeepgram = { url: '', utterances: [], connections: [], delayMs: 0, dropCode: 1011, joinWithinMs: 600, stop: () => server.stop(true) }
  const send = (ws: ServerWebSocket<Conn>, msg: unknown) => {
    const text = typeof msg === 'string' ? msg : JSON.stringify(msg)
    if (fake.delayMs > 0) setTimeout(() => ws.readyState === 1 && ws.send(text), fake.delayMs)
    else ws.send(text)
  }
  const results = (c: Conn, transcript: string, isFinal: boolean, speechFinal: boolean, startMs: number, endMs: number) => ({
    type: 'Results',
    channel_index: [0, 1],
    duration: (endMs - startMs) / 1000,
    start: startMs / 1000,
    is_final: isFinal,
    speech_final: speechFinal,
    channel: {
      alternatives: [
        {
          transcript,
          confidence: transcript ? 0.98 : 0,
          words: transcript ? transcript.split(' ').map((w) => ({ word: w.toLowerCase(), start: startMs / 1000, end: endMs / 1000, confidence: 0.98 })) : [],
        },
      ],
    },
    metadata: { request_id: 'fake', model_info: { name: 'fake', version: '1', arch: 'fake' }, model_uuid: 'fake' },
    from_finalize: false,
  })
  /** Timed words of the utterance begun `beforeMs` after its first loud frame. */
  const begun = (c: Conn, beforeMs: number) => c.wordStarts!.filter((w) => w <= beforeMs).length
  const finishUtterance = (ws: ServerWebSocket<Conn>, c: Conn, nowMs: number) => {
    let text = c.text
    if (c.wordStarts) {
      const n = Math.max(c.finalized, begun(c, c.lastVoiceMs - c.utteranceStartMs))
      text = c.words.slice(c.finalized, n).join(' ')
      c.finalized = n
    }
    send(ws, results(c, text, true, true, c.speechStartMs, c.lastVoiceMs))
    c.speaking = false
    c.utteranceEndDue = c.lastVoiceMs + c.utteranceEndMs
    c.silenceSinceFinal = nowMs
    c.finalEndMs = c.lastVoiceMs
  }
  const startUtterance = (c: Conn, startMs: number) => {
    const joins = fake.joinWithinMs !== undefined && c.finalEndMs !== undefined && startMs - c.finalEndMs < fake.joinWithinMs
    if (joins && c.wordStarts) return
    if (joins) {
      c.text = ''
      c.words = ['']
      return
    }
    const next = c.script ? c.script.shift() : { text: fake.utterances.shift() ?? '' }
    c.text = next?.text ?? ''
    c.words = c.text.split(' ')
    c.wordStarts = next?.wordStartsMs
    c.utteranceStartMs = startMs
    c.finalized = 0
  }
  const interim = (ws: ServerWebSocket<Conn>, c: Conn, endMs: number) => {
    if (c.wordStarts) {
      const n = begun(c, endMs - c.utteranceStartMs - WORD_HEARD_MS)
      if (n <= c.finalized + c.interimSent) return
      c.interimSent = n - c.finalized
      return send(ws, results(c, c.words.slice(c.finalized, n).join(' '), false, false, c.speechStartMs, endMs))
    }
    const spoken = endMs - c.speechStartMs
    const n = Math.min(c.words.length - 1, Math.floor(spoken / 400))
    if (n > c.interimSent) {
      c.interimSent = n
      send(ws, results(c, c.words.slice(0, n).join(' '), false, false, c.speechStartMs, endMs))
    }
  }
  const onFrame = (ws: ServerWebSocket<Conn>, c: Conn, level: number, startMs: number) => {
    const endMs = startMs + FRAME_MS
    if (level > THRESHOLD) {
      if (!c.speaking) {
        startUtterance(c, startMs)
        c.speaking = true
        c.speechStartMs = startMs
        c.interimSent = 0
        c.utteranceEndDue = undefined
        send(ws, { type: 'SpeechStarted', channel: [0], timestamp: startMs / 1000 })
      }
      c.lastVoiceMs = endMs
      interim(ws, c, endMs)
    } else if (c.speaking && endMs - c.lastVoiceMs >= Math.max(fake.finalAfterMs ?? 0, c.endpointingMs)) {
      finishUtterance(ws, c, endMs)
    } else if (!c.speaking) {
      if (c.utteranceEndDue !== undefined && endMs >= c.utteranceEndDue) {
        send(ws, { type: 'UtteranceEnd', channel: [0, 1], last_word_end: (c.utteranceEndDue - c.utteranceEndMs) / 1000 })
        c.utteranceEndDue = undefined
      }
      if (endMs - c.silenceSinceFinal >= 1000) {
        // Deepgram keeps sending empty finals while the line is quiet
        send(ws, results(c, '', true, false, c.silenceSinceFinal, endMs))
        c.silenceSinceFinal = endMs
      }
    }
  }
  const server = Bun.serve<Conn>({
    hostname: '127.0.0.1',
    port: 0,
    fetch(req, srv) {
      const url = new URL(req.url)
      if (url.pathname !== '/v1/listen') return new Response('not found', { status: 404 })
      const auth = req.headers.get('authorization')
      if (!auth?.startsWith('Token ')) return new Response(JSON.stringify({ err_code: 'INVALID_AUTH', err_msg: 'Invalid credentials.' }), { status: 401 })
      if (url.searchParams.get('encoding') !== 'linear16') return new Response('bad encoding', { status: 400 })
      fake.connections.push({ query: url.searchParams, authorization: auth })
      const data: Conn = {
        rate: Number(url.searchParams.get('sample_rate') ?? 16000),
        endpointingMs: Number(url.searchParams.get('endpointing') ?? 10),
        utteranceEndMs: Number(url.searchParams.get('utterance_end_ms') ?? 1000),
        samples: 0,
        frameAcc: [],
        speaking: false,
        speechStartMs: 0,
        lastVoiceMs: 0,
        silenceSinceFinal: 0,
        text: '',
        words: [],
        interimSent: 0,
        utteranceEndDue: undefined,
        dropAfterMs: fake.dropNextAfterMs,
        script: fake.perConnection ? [...fake.perConnection] : undefined,
        finalEndMs: undefined,
        utteranceStartMs: 0,
        wordStarts: undefined,
        finalized: 0,
      }
      fake.dropNextAfterMs = undefined
      return srv.upgrade(req, { data }) ? undefined : new Response('upgrade failed', { status: 400 })
    },
    websocket: {
      open(ws) {
        if (fake.garbageNext !== undefined) {
          ws.send(fake.garbageNext)
          fake.garbageNext = undefined
        }
      },
      message(ws, msg) {
        const c = ws.data
        if (typeof msg === 'string') {
          const control = JSON.parse(msg) as { type?: string }
          if (control.type === 'CloseStream') {
            const nowMs = (c.samples * 1000) / c.rate
            if (c.speaking) finishUtterance(ws, c, nowMs)
            send(ws, { type: 'Metadata', transaction_key: 'deprecated', request_id: 'fake', sha256: '', created: new Date().toISOString(), duration: nowMs / 1000, channels: 1 })
            setTimeout(() => ws.close(1000), fake.delayMs + 1)
          }
          return
        }
        const view = new DataView(msg.buffer, msg.byteOffset, msg.byteLength)
        const frameSamples = (c.rate * FRAME_MS) / 1000
        for (let i = 0; i + 1 < msg.byteLength; i += 2) {
          c.frameAcc.push(Math.abs(view.getInt16(i, true)))
          if (c.frameAcc.length === frameSamples) {
            const level = c.frameAcc.reduce((a, b) => a + b, 0) / frameSamples
            const startMs = ((c.samples - frameSamples + 1) * 1000) / c.rate
            c.frameAcc = []
            onFrame(ws, c, level, Math.max(0, Math.round(startMs)))
          }
          c.samples++
        }
        if (c.dropAfterMs !== undefined && (c.samples * 1000) / c.rate >= c.dropAfterMs) ws.close(fake.dropCode, 'dropped')
      },
    },
  })
  fake.url = `ws://127.0.0.1:${server.port}`
  return fake
}
