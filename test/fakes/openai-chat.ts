import { type Delays, isFailure, isHang, pacedBody, type Planned, sse } from './paced.ts'

export interface ScriptedReply {
  /** Sent as content deltas, split on word boundaries like a real model. */
  text?: string
  toolCalls?: { name: string; arguments: string }[]
  /** cached: the part of prompt served from the prompt cache (sent as prompt_tokens_details, as OpenAI does). */
  usage?: { prompt: number; completion: number; cached?: number }
  finishReason?: string
  /** Cut the stream after this many SSE events (a dropped connection). */
  truncateAfter?: number
}

/** The chunks an OpenAI chat-completions stream sends for one reply, `data: [DONE]` included. */
export function openAiChatEvents(reply: ScriptedReply, model: string): string[] {
  const id = `chatcmpl-${Math.random().toString(36).slice(2, 12)}`
  const created = Math.floor(Date.now() / 1000)
  const chunk = (delta: unknown, finish: string | null = null) =>
    sse({
      id,
      object: 'chat.completion.chunk',
      created,
      model,
      system_fingerprint: 'fp_fake',
      choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
      usage: null,
    })
  const out = [chunk({ role: 'assistant', content: '', refusal: null })]
  for (const piece of (reply.text ?? '').match(/\S+\s*|\s+/g) ?? []) out.push(chunk({ content: piece }))
  ;(reply.toolCalls ?? []).forEach((call, index) => {
    const callId = `call_${Math.random().toString(36).slice(2, 14)}`
    out.push(chunk({ tool_calls: [{ index, id: callId, type: 'function', function: { name: call.name, arguments: '' } }] }))
    for (let i = 0; i < call.arguments.length; i += 7) {
      out.push(chunk({ tool_calls: [{ index, function: { arguments: call.arguments.slice(i, i + 7) } }] }))
    }
  })
  out.push(chunk({}, reply.finishReason ?? (reply.toolCalls?.length ? 'tool_calls' : 'stop')))
  const usage = reply.usage ?? { prompt: 10, completion: 5 }
  out.push(
    sse({
      id,
      object: 'chat.completion.chunk',
      created,
      model,
      system_fingerprint: 'fp_fake',
      choices: [],
      usage: usageOf(usage),
    }),
  )
  out.push('data: [DONE]\n\n')
  return reply.truncateAfter === undefined ? out : out.slice(0, reply.truncateAfter)
}

export function handleChat(body: { model?: string; stream?: boolean }, plan: Planned<ScriptedReply> | undefined, delays: Delays): Response {
  if (plan === undefined) return Response.json({ error: { message: 'fake has no scripted reply', type: 'server_error' } }, { status: 500 })
  if (isFailure(plan)) return new Response(plan.body ?? JSON.stringify({ error: { message: 'failure', type: 'server_error' } }), { status: plan.failStatus })
  if (body.stream === false) return completionJson(plan as ScriptedReply, body.model ?? 'fake')
  const headers = { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' }
  if (isHang(plan)) return new Response(pacedBody([], delays, true), { headers })
  return new Response(pacedBody(openAiChatEvents(plan, body.model ?? 'fake'), delays), { headers })
}

/** A non-streamed chat.completion (what `stream: false`, e.g. a structured-output request, gets). */
function completionJson(reply: ScriptedReply, model: string): Response {
  const usage = reply.usage ?? { prompt: 10, completion: 5 }
  return Response.json({
    id: `chatcmpl-${Math.random().toString(36).slice(2, 12)}`,
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model,
    system_fingerprint: 'fp_fake',
    choices: [{ index: 0, message: { role: 'assistant', content: reply.text ?? '', refusal: null }, logprobs: null, finish_reason: reply.finishReason ?? 'stop' }],
    usage: usageOf(usage),
  })
}

function usageOf(u: NonNullable<ScriptedReply['usage']>) {
  return { prompt_tokens: u.prompt, completion_tokens: u.completion, total_tokens: u.prompt + u.completion, prompt_tokens_details: { cached_tokens: u.cached ?? 0, audio_tokens: 0 } }
}
