import { t } from 'elysia'
import { Variables } from '../../platform/schema/index.ts'

export const TranscriptSource = t.Object({
  passageId: t.Integer(),
  documentName: t.String(),
  section: t.String(),
  score: t.Number({ description: "0..1, the knowledge search's confidence" }),
})

export const TranscriptItem = t.Object({
  role: t.Union([t.Literal('agent'), t.Literal('user')]),
  text: t.String(),
  timestamp: t.Number({ description: 'seconds from the start of the call, fractional' }),
  sources: t.Optional(t.Array(TranscriptSource, { description: 'not in the spec: the knowledge-base passages an agent line was spoken from (a workflow answer node, the knowledge_search tool)' })),
  interrupted: t.Optional(t.Literal(true, { description: 'not in the spec: present on an agent line cut before its end (the caller spoke over it, or the call ended); text is what was said up to the cut' })),
})
export type TranscriptItem = typeof TranscriptItem.static

const ms = (description: string) => t.Union([t.Number(), t.Null()], { description })

// "Speech end" is the caller's last voiced audio as it reached the appliance, not the moment the
// VAD decided it; the parts add up: voiceToVoiceMs = endpointingMs + responseMs + leadingSilenceMs.
export const TurnMetrics = t.Object(
  {
    vadHangoverMs: ms('speech end -> the silence that ends the turn was over (or the STT said the turn ended); part of endpointingMs'),
    endpointingMs: ms('speech end -> turn committed: the hangover, then any wait for the STT final'),
    sttFinalMs: ms('speech end -> final transcript (may come before the hangover is over)'),
    responseMs: ms('turn committed -> first agent audio frame sent (the brain, LLM and TTS inside)'),
    llmTtftMs: ms('LLM request -> first token; part of responseMs'),
    ttsTtfbMs: ms('first sentence sent to TTS -> first TTS audio; part of responseMs'),
    leadingSilenceMs: ms('first agent frame sent -> first voiced agent frame sent (silence TTS put before the words)'),
    voiceToVoiceMs: ms('speech end -> first voiced agent frame sent: what the caller waits; endpointingMs + responseMs + leadingSilenceMs'),
  },
  { description: 'latencies of one caller turn in ms; null when the stage did not run or was not measured' },
)
export type TurnMetrics = typeof TurnMetrics.static

export const CallMetrics = t.Object({
  totalTokens: t.Integer(),
  inputTokens: t.Integer(),
  outputTokens: t.Integer(),
  model: t.String({ description: "the LLM that ran the call ('' when a workflow ran it without one)" }),
  ttsProvider: t.String(),
  sttProvider: t.String({ description: "'' when the call had no speech recognition" }),
  ttsDuration: t.Number({ description: 'seconds of synthesized speech' }),
  ttsCharacters: t.Integer(),
  sttDuration: t.Number({ description: 'seconds of caller audio sent to speech recognition' }),
  latencyP50: t.Number({ description: 'voice-to-voice latency over the call, ms (nearest rank); 0 when no turn measured one (turns is [] or none of its voiceToVoiceMs is a number)' }),
  latencyP99: t.Number({ description: 'voice-to-voice latency over the call, ms (nearest rank); 0 when no turn measured one, as latencyP50' }),
  turns: t.Array(TurnMetrics, { description: 'per caller turn, in order; [] when no turn was measured' }),
})
export type CallMetrics = typeof CallMetrics.static

export const CallCost = t.Object(
  {
    total: t.Number(),
    llm: t.Number(),
    tts: t.Number(),
    stt: t.Number(),
    telephony: t.Number(),
    analysis: t.Optional(t.Number({ description: 'the post-call analysis and automatic evaluation (LLM), once done' })),
    unpriced: t.Optional(t.Array(t.String(), { description: 'models the call used that have no price, so the numbers leave them out (present only when there are some)' })),
  },
  { description: 'USD, from the configured price table; total includes analysis' },
)
export type CallCost = typeof CallCost.static

const count = (description: string) => t.Integer({ minimum: 0, description })
export const MediaFactsSchema = t.Object(
  {
    codec: t.String({ description: 'name/clock rate, e.g. PCMU/8000 or opus/48000' }),
    remoteAddress: t.String({ description: "where the far end's media came from (the source we latched to), else the address its SDP gave" }),
    remotePort: t.Integer(),
    srtpSuite: t.Union([t.String(), t.Null()], { description: 'the SRTP crypto suite (SDES, or DTLS-SRTP for web calls); null for plain RTP' }),
    packetsSent: count('RTP packets we sent'),
    bytesSent: count('RTP payload bytes we sent'),
    packetsReceived: count('RTP packets received from the far end'),
    bytesReceived: count('RTP payload bytes received'),
    packetsLost: count('packets that never arrived (sequence gaps)'),
    packetsLate: count('packets that arrived after their playout time'),
    packetsDiscarded: count('packets the jitter buffer dropped to bring its delay back down'),
    jitterMs: t.Number({ description: 'RFC 3550 interarrival jitter, ms' }),
    maxGapMs: t.Integer({ description: 'the longest time between two incoming packets while media was due (not on hold), ms' }),
    web: t.Optional(
      t.Object({
        ice: t.String({ description: 'the ICE connection state the call reached: connected, completed, failed, checking, new, ...' }),
        dtls: t.String({ description: 'the DTLS transport state the call reached: connected, failed, connecting, new, ...' }),
        failure: t.Union([t.Literal('ice_failed'), t.Literal('dtls_failed'), t.Literal('no_media'), t.Null()], {
          description: 'why a web call failed: no ICE candidate pair succeeded, DTLS did not complete, or no media arrived; null when it did not fail',
        }),
      }, { description: 'web calls only' }),
    ),
  },
  { description: "the call's media as it went; null while the call is in progress and for calls that had no media" },
)

const Status = t.Union([t.Literal('queued'), t.Literal('ringing'), t.Literal('in_progress'), t.Literal('ended')])
export const Outcome = t.Union([
  t.Literal('completed'), t.Literal('transferred'), t.Literal('busy'), t.Literal('no_answer'), t.Literal('not_found'), t.Literal('declined'),
  t.Literal('cancelled'), t.Literal('failed'), t.Literal('silence_timeout'), t.Literal('max_duration'), t.Literal('provider_error'), t.Literal('not_configured'),
  t.Literal('shutdown'), t.Literal('media_timeout'),
])
const nullableString = (description?: string) => t.Union([t.String(), t.Null()], description ? { description } : {})

const CallTypeSchema = t.Union([t.Literal('inbound'), t.Literal('outbound'), t.Literal('web'), t.Literal('stream'), t.Literal('test')], {
  description: 'inbound and outbound: SIP calls; web: from a browser (WebRTC); stream: over the media-stream WebSocket',
})

export const Call = t.Object({
  id: t.String(),
  workspaceId: t.String(),
  agentId: nullableString(),
  agentName: nullableString('the name the agent had when the call took place'),
  agentDeleted: t.Boolean({ description: 'the agent has been deleted since (agentName still names it); false for a call with no agent' }),
  phoneNumberId: nullableString('our number the call used'),
  phoneNumberLabel: nullableString("that number's label as it is now (kept after the number is released); null when the call used no number"),
  type: CallTypeSchema,
  testDraft: t.Optional(t.Boolean({ description: "true for a test call that ran the agent's draft prompt or an unsaved workflow" })),
  from: t.String({ description: 'E.164 when the caller sent a phone number, else the SIP user' }),
  to: t.String(),
  memberEmail: nullableString('web and stream calls: the email of the workspace member whose API key placed the call (from holds their user id); null for phone calls'),
  status: Status,
  outcome: t.Union([Outcome, t.Null()], { description: 'set when status is ended' }),
  endReason: nullableString('who or what ended it: caller_hangup, agent_hangup, busy, transferred, ...'),
  dynamicVariables: t.Record(t.String(), t.String()),
  startedAt: nullableString('when the call was dialled or arrived'),
  answeredAt: nullableString(),
  endedAt: nullableString(),
  duration: t.Integer({ description: 'seconds from answer to end' }),
  transcript: t.Array(TranscriptItem),
  toolCalls: t.Array(
    t.Object({
      name: t.String(),
      arguments: t.Unknown({ description: 'as the model gave them: the parsed JSON, else the raw string' }),
      result: t.String({ description: 'the first 500 characters of what the tool answered' }),
      at: t.Number({ description: 'seconds from the start of the call' }),
    }),
    { description: 'the tools the agent called, in order (the first 200); empty for calls before they were kept' },
  ),
  metrics: t.Union([CallMetrics, t.Null()], { description: 'null until the call has ended' }),
  cost: t.Union([CallCost, t.Null()], { description: 'null until the call has ended' }),
  media: t.Union([MediaFactsSchema, t.Null()], { description: "the call's media diagnostics; null until the call has ended, and for calls that had no media" }),
  recordingUrl: nullableString('GET it with the same API key; null when the call was not recorded'),
  outboundJobId: t.Optional(nullableString('the outbound job (campaign) that placed the call')),
  outboundContactId: t.Optional(nullableString("that job's contact")),
  createdAt: t.String(),
})
export type Call = typeof Call.static

export const PlaceCallBody = t.Object({
  phoneNumberId: t.String({ description: 'our number to call from (caller ID)' }),
  to: t.String({ maxLength: 32, description: 'E.164 number to call' }),
  agentId: t.Optional(t.String({ description: "defaults to the number's outbound agent" })),
  dynamicVariables: t.Optional(Variables(t.String({ maxLength: 2000 }), 'filled into {{name}} in the prompt and welcome message; at most 64')),
})
export type PlaceCallBody = typeof PlaceCallBody.static

export const CallFilters = {
  agentId: t.Optional(t.String()),
  phoneNumberId: t.Optional(t.String({ description: 'our number the call used' })),
  type: t.Optional(t.Union([t.Literal('inbound'), t.Literal('outbound'), t.Literal('web'), t.Literal('stream'), t.Literal('test')], { description: 'the direction, or web / stream; test: an agent test call (listed only when asked for)' })),
  direction: t.Optional(t.Union([t.Literal('inbound'), t.Literal('outbound'), t.Literal('web'), t.Literal('stream'), t.Literal('test')], { description: 'the same as type' })),
  status: t.Optional(Status),
  outcome: t.Optional(Outcome),
  label: t.Optional(t.String({ minLength: 1, maxLength: 64, description: 'calls carrying this label' })),
  sentiment: t.Optional(t.Union([t.Literal('positive'), t.Literal('neutral'), t.Literal('negative')], { description: "the analysis' caller sentiment" })),
  campaignId: t.Optional(t.String({ description: 'the outbound job (campaign) that placed the calls' })),
  createdAfter: t.Optional(t.String({ format: 'date-time', description: 'calls created at or after this time (ISO 8601)' })),
  createdBefore: t.Optional(t.String({ format: 'date-time', description: 'calls created before this time (ISO 8601)' })),
}

export const CallsQuery = t.Object({
  limit: t.Optional(t.Integer({ minimum: 1, maximum: 100, default: 50, description: 'page size, 1-100' })),
  cursor: t.Optional(t.String({ description: "opaque cursor from the previous page's nextCursor" })),
  ...CallFilters,
})
export type CallsQuery = typeof CallsQuery.static
export type CallFilterValues = Omit<CallsQuery, 'limit' | 'cursor'>
