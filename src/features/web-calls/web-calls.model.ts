import { t } from 'elysia'
import { WorkflowInput } from '../workflows/workflows.model.ts'

export const StartWebCallBody = t.Object({
  sdp: t.String({ minLength: 10, maxLength: 32768, description: "the browser's SDP offer (RTCPeerConnection.createOffer), with or without its candidates" }),
  draft: t.Optional(t.Boolean({ description: "run the agent's draft prompt instead of the published one; the call is marked testDraft" })),
  workflow: t.Optional(t.Composite([WorkflowInput], { description: 'an unsaved workflow to run instead of the saved one (validated as PUT .../workflow does); marks the call testDraft' })),
})
export type StartWebCallBody = typeof StartWebCallBody.static

const IceServer = t.Object({ urls: t.Union([t.String(), t.Array(t.String())]), username: t.Optional(t.String()), credential: t.Optional(t.String()) })

export const WebCallStarted = t.Object({
  callId: t.String({ description: 'the call record: GET /api/calls/{callId}' }),
  type: t.Literal('web'),
  sdp: t.String({ description: "the appliance's SDP answer, with all its ICE candidates (it does not trickle)" }),
  iceServers: t.Array(IceServer, { description: 'the STUN/TURN servers the appliance uses (WEBRTC_ICE_SERVERS); give the same to RTCPeerConnection' }),
})

export const CandidateBody = t.Object({
  candidate: t.Union([t.String({ maxLength: 1024 }), t.Null()], { description: 'an RTCIceCandidate.candidate line; null: the browser has no more' }),
  sdpMid: t.Optional(t.Union([t.String({ maxLength: 64 }), t.Null()])),
  sdpMLineIndex: t.Optional(t.Union([t.Integer({ minimum: 0, maximum: 16 }), t.Null()])),
})

export const WebCallParams = t.Object({ id: t.String(), call_id: t.String() })

export const LiveViewSchema = t.Object({
  status: t.Union([t.Literal('ringing'), t.Literal('in_progress'), t.Literal('ended')]),
  transcript: t.Array(t.Object({ role: t.Union([t.Literal('agent'), t.Literal('user')]), text: t.String(), timestamp: t.Number({ description: 'seconds from the start of the call' }) }, { additionalProperties: true })),
  turns: t.Array(t.Object({ text: t.String(), voiceToVoiceMs: t.Union([t.Number(), t.Null()]), responseMs: t.Union([t.Number(), t.Null()]) })),
})
