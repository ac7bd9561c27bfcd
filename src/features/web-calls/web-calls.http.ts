// Talk to an agent from the browser: WebRTC signalling over the API with the caller's key.
// POST an offer, get the answer; trickle candidates; read the live view; hang up.
import { Elysia } from 'elysia'
import type { AuthPlugin } from '../../http/auth.ts'
import { IdParams, Ok } from '../../platform/schema/index.ts'
import { CandidateBody, LiveViewSchema, StartWebCallBody, WebCallParams, WebCallStarted } from './web-calls.model.ts'
import type { WebCalls } from './web-calls.service.ts'

export function webCallsController(calls: WebCalls, auth: AuthPlugin) {
  return new Elysia({ prefix: '/api/agents/:id/web-calls', tags: ['Web calls'] })
    .use(auth)
    .post(
      '',
      async ({ params, body, principal, server, request, set }) => {
        const ip = server?.requestIP(request)
        set.status = 201
        return calls.start(principal, params.id, body, { address: ip?.address ?? 'unknown', port: ip?.port ?? 0 })
      },
      {
        permission: 'agents:test',
        params: IdParams,
        body: StartWebCallBody,
        response: { 201: WebCallStarted },
        detail: {
          summary: 'Call the agent from a browser (WebRTC): send an SDP offer, get the answer',
          description:
            'Opus over DTLS-SRTP; the call runs like a phone call and is listed with type "web" and the member as `from`. ' +
            'Only host candidates unless WEBRTC_ICE_SERVERS names STUN/TURN. 422 for an offer without audio or Opus, and at once (holding no place) for one ICE or DTLS cannot start with: no a=ice-ufrag/a=ice-pwd, no a=fingerprint, or a=end-of-candidates with no candidate. 503 not_ready with details.reason and Retry-After: web_slots beyond WEB_CALLS_MAX, web_share beyond the workspace\'s WEB_CALLS_SHARE of it, workspace_limit at its maxConcurrentCalls, no_headroom when the node is full.',
        },
      },
    )
    .post(
      '/:call_id/candidates',
      async ({ params, body, principal }) => {
        await calls.addCandidate(principal, params.id, params.call_id, body.candidate === null ? null : { candidate: body.candidate, sdpMid: body.sdpMid, sdpMLineIndex: body.sdpMLineIndex })
        return { ok: true as const }
      },
      { permission: 'agents:test', params: WebCallParams, body: CandidateBody, response: Ok, detail: { summary: "Add a candidate the browser trickled after its offer" } },
    )
    .get('/:call_id', ({ params, principal }) => calls.live(principal, params.id, params.call_id), {
      permission: 'agents:test',
      params: WebCallParams,
      response: LiveViewSchema,
      detail: {
        summary: 'The live call: status, transcript so far and each turn\'s latency (404 once it has ended: read GET /api/calls/{id})',
        description:
          "A turn's responseMs and voiceToVoiceMs are null from the moment the caller's turn is committed until the agent's answer " +
          "sends its first frame and its first voiced frame; then they are the figures the call record's metrics.turns keeps (rounded the same way).",
      },
    })
    .delete(
      '/:call_id',
      ({ params, principal }) => {
        calls.hangup(principal, params.id, params.call_id)
        return { ok: true as const }
      },
      { permission: 'agents:test', params: WebCallParams, response: Ok, detail: { summary: 'Hang up a web call' } },
    )
}
