import { handleChat, type ScriptedReply } from './openai-chat.ts'
import { type Delays, isFailure, isHang, NO_DELAY, pacedBody, type Planned } from './paced.ts'
import { chunks, le16, speechMsFor, tone } from './tone.ts'

export interface FakeOpenAi {
  /** Base URL including /v1, as the adapters expect. */
  url: string
  requests: { path: string; headers: Headers; body: any }[]
  chat: Planned<ScriptedReply>[]
  /** Opt-in: answers a conversation request once `chat` is empty, from what it holds (a model that reads its prompt). */
  answer?: (body: any) => ScriptedReply
  /** Replies to structured-output requests (`response_format: json_schema`, the post-call analysis), kept apart from the conversation's. */
  structured: Planned<ScriptedReply>[]
  speech: Planned<{ ok: true }>[]
  transcripts: Planned<string>[]
  delays: Delays
  stop(): void
}

/** A local server speaking OpenAI's chat-completions SSE, audio/speech and audio/transcriptions. */
export function startFakeOpenAi(): FakeOpenAi {
  const fake: FakeOpenAi = {
    url: '',
    requests: [],
    chat: [],
    structured: [],
    speech: [],
    transcripts: [],
    delays: { ...NO_DELAY },
    stop: () => server.stop(true),
  }
  const server = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    idleTimeout: 0,
    async fetch(req) {
      const path = new URL(req.url).pathname
      if (req.method !== 'POST') return new Response('not found', { status: 404 })
      if (!req.headers.get('authorization')?.startsWith('Bearer ')) {
        return Response.json({ error: { message: 'You didn\'t provide an API key.', type: 'invalid_request_error' } }, { status: 401 })
      }
      if (path === '/v1/chat/completions') {
        const body = await req.json()
        fake.requests.push({ path, headers: req.headers, body })
        const queue = (body as { response_format?: { type?: string } }).response_format?.type === 'json_schema' ? fake.structured : fake.chat
        const planned = queue.shift() ?? (queue === fake.chat ? fake.answer?.(body) : undefined)
        return handleChat(body as { model?: string; stream?: boolean }, planned, fake.delays)
      }
      if (path === '/v1/audio/speech') {
        const body = (await req.json()) as { input?: string; response_format?: string }
        fake.requests.push({ path, headers: req.headers, body })
        const plan = fake.speech.shift() ?? { ok: true as const }
        if (isFailure(plan)) return Response.json({ error: { message: 'failure' } }, { status: plan.failStatus })
        if (body.response_format !== 'pcm') return Response.json({ error: { message: 'fake only speaks pcm' } }, { status: 400 })
        if (isHang(plan)) return new Response(pacedBody([], fake.delays, true))
        // OpenAI's pcm format: raw 24 kHz 16-bit little-endian mono, chunked
        const pcm = le16(tone(speechMsFor(body.input ?? ''), 24000, 300))
        return new Response(pacedBody(chunks(pcm, 4801), fake.delays), { headers: { 'content-type': 'audio/pcm' } })
      }
      if (path === '/v1/audio/transcriptions') {
        const form = await req.formData()
        const file = form.get('file')
        const prompt = form.get('prompt')
        const body = { model: form.get('model'), language: form.get('language'), fileBytes: file instanceof Blob ? file.size : 0, ...(prompt !== null ? { prompt } : {}) }
        fake.requests.push({ path, headers: req.headers, body })
        if (!(file instanceof Blob) || file.size < 44) {
          return Response.json({ error: { message: 'Invalid file format.', type: 'invalid_request_error' } }, { status: 400 })
        }
        const plan = fake.transcripts.shift()
        if (plan === undefined) return Response.json({ error: { message: 'no scripted transcript' } }, { status: 500 })
        if (isFailure(plan)) return Response.json({ error: { message: 'failure' } }, { status: plan.failStatus })
        if (isHang(plan)) return new Response(pacedBody([], fake.delays, true))
        const seconds = (file.size - 44) / 2 / 16000
        return new Response(pacedBody([JSON.stringify({ text: plan, usage: { type: 'duration', seconds: Math.ceil(seconds) } })], fake.delays), {
          headers: { 'content-type': 'application/json' },
        })
      }
      return new Response('not found', { status: 404 })
    },
  })
  fake.url = `http://127.0.0.1:${server.port}/v1`
  return fake
}
