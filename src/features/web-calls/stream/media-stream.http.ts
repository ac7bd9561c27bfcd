// The media-stream WebSocket: GET /api/agents/{id}/media-stream with Upgrade: websocket and the
// caller's key. Access, the agent and the limits are checked before the upgrade, so a refusal is
// the ordinary JSON error body. See docs/media-stream.md.
import { Elysia, t } from 'elysia'
import type { AuthPlugin } from '../../../http/auth.ts'
import { AppError } from '../../../platform/errors.ts'
import { IdParams } from '../../../platform/schema/index.ts'
import type { MediaStreams } from './media-streams.ts'
import type { StreamSession, StreamSocket } from './session.ts'

export const MediaStreamQuery = t.Object({
  format: t.Optional(
    t.Union([t.Literal('mulaw'), t.Literal('pcm16')], {
      description: 'mulaw (default): 8 kHz μ-law, base64 in JSON media messages, as Twilio; pcm16: 16 kHz signed 16-bit little-endian mono in binary frames',
    }),
  ),
  draft: t.Optional(t.Boolean({ description: "run the agent's draft prompt; the call is marked testDraft" })),
})

/** Bun's websocket handlers, which Elysia's server calls through the socket's data. */
const socketHandlers = (session: StreamSession) => ({
  open: (ws: StreamSocket) => void session.open(ws),
  message: (_ws: StreamSocket, data: string | Uint8Array) => session.message(data),
  close: (_ws: StreamSocket, code: number, reason: string) => session.closed(code, reason),
})

export function mediaStreamController(streams: MediaStreams, auth: AuthPlugin) {
  return new Elysia({ prefix: '/api/agents/:id/media-stream', tags: ['Web calls'] })
    .use(auth)
    .get(
      '',
      async ({ params, query, principal, server, request }) => {
        if (request.headers.get('upgrade')?.toLowerCase() !== 'websocket' || !server) {
          throw new AppError(426, 'bad_request', 'this is a WebSocket endpoint: connect with Upgrade: websocket', undefined, { upgrade: 'websocket', connection: 'Upgrade' })
        }
        const ip = server.requestIP(request)
        const remote = { address: ip?.address ?? 'unknown', port: ip?.port ?? 0 }
        const session = await streams.prepare(principal, params.id, { format: query.format ?? 'mulaw', draft: query.draft === true, remote })
        if (!server.upgrade(request, { data: socketHandlers(session) })) {
          session.closed(1006, 'the upgrade failed')
          throw new AppError(400, 'bad_request', 'the WebSocket upgrade failed')
        }
        return undefined
      },
      {
        permission: 'agents:test',
        params: IdParams,
        query: MediaStreamQuery,
        detail: {
          summary: 'Talk with the agent over a WebSocket (media stream, Twilio Media Streams shape)',
          description:
            'Upgrade to a WebSocket with the key in Authorization. The server sends connected, start (callSid: the call record), then the agent\'s audio every 20 ms (media messages, or binary frames with format=pcm16), clear on barge-in, mark echoes and stop; ' +
            'the client sends its audio the same way, and mark, clear, dtmf and stop. The call is listed with type "stream". Close codes: 1000 ended, 1003 wrong frame type, 1007 bad message, 1008 not reading or too fast, 1009 over 64 KiB, 1011/1013 call not started. ' +
            '426 without an upgrade; 404 for an agent of another workspace; 503 not_ready with details.reason and Retry-After beyond WEB_CALLS_MAX (web_slots) or the workspace\'s WEB_CALLS_SHARE of it (web_share), at the workspace\'s maxConcurrentCalls (workspace_limit), or without headroom (no_headroom). See docs/media-stream.md.',
        },
      },
    )
}
