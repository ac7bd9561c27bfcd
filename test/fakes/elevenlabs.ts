import { type Delays, isFailure, isHang, NO_DELAY, pacedBody, type Planned } from './paced.ts'
import { chunks, le16, speechMsFor, tone } from './tone.ts'

export interface FakeElevenLabs {
  url: string
  requests: { path: string; query: URLSearchParams; headers: Headers; body: any }[]
  plan: Planned<{ ok: true }>[]
  delays: Delays
  /** Bytes per chunk of the streamed body; odd sizes split samples across chunks. */
  chunkBytes: number
  stop(): void
}

const RATES: Record<string, number> = { pcm_8000: 8000, pcm_16000: 16000, pcm_22050: 22050, pcm_24000: 24000, pcm_44100: 44100 }

/** A local server speaking ElevenLabs' streaming text-to-speech: chunked raw PCM. */
export function startFakeElevenLabs(): FakeElevenLabs {
  const fake: FakeElevenLabs = {
    url: '',
    requests: [],
    plan: [],
    delays: { ...NO_DELAY },
    chunkBytes: 3201,
    stop: () => server.stop(true),
  }
  const server = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    idleTimeout: 0,
    async fetch(req) {
      const url = new URL(req.url)
      const m = /^\/v1\/text-to-speech\/([^/]+)\/stream$/.exec(url.pathname)
      if (req.method !== 'POST' || !m) return new Response('not found', { status: 404 })
      if (!req.headers.get('xi-api-key')) {
        return Response.json({ detail: { status: 'invalid_api_key', message: 'Invalid API key' } }, { status: 401 })
      }
      const body = (await req.json()) as { text?: string }
      fake.requests.push({ path: url.pathname, query: url.searchParams, headers: req.headers, body })
      const rate = RATES[url.searchParams.get('output_format') ?? 'mp3_44100_128']
      if (!rate) return Response.json({ detail: { status: 'invalid_output_format', message: 'fake speaks pcm only' } }, { status: 400 })
      if (!body.text) return Response.json({ detail: [{ loc: ['body', 'text'], msg: 'field required' }] }, { status: 422 })
      const plan = fake.plan.shift() ?? { ok: true as const }
      if (isFailure(plan)) return Response.json({ detail: { status: 'error', message: 'failure' } }, { status: plan.failStatus })
      if (isHang(plan)) return new Response(pacedBody([], fake.delays, true))
      const pcm = le16(tone(speechMsFor(body.text), rate, 220))
      return new Response(pacedBody(chunks(pcm, fake.chunkBytes), fake.delays), { headers: { 'content-type': 'audio/pcm' } })
    },
  })
  fake.url = `http://127.0.0.1:${server.port}`
  return fake
}
