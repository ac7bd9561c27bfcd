import type { AudioFrame } from '../audio.ts'
import type { ToolSpec } from '../llm/contract.ts'
import type { Stt } from '../stt/contract.ts'
import type { Tts } from '../tts/contract.ts'
import type { SpeechHandle } from '../turn/speech-handle.ts'
import type { BargeInParams } from '../turn/barge-in.ts'
import type { EndpointingParams } from '../turn/endpointing.ts'
import type { EndpointingMode } from '../turn/silence.ts'
import type { LatencySummary, TurnLatency } from '../turn/metrics.ts'
import type { VadModel } from '../vad/contract.ts'
import type { HysteresisParams } from '../vad/hysteresis.ts'

export interface SessionEngines {
  vad: VadModel
  /** Without STT the caller is understood through DTMF only. */
  stt: Stt | undefined
  /** Producing audio at the session's sample rate. */
  tts: Tts
}

export interface SessionSettings {
  vad: HysteresisParams
  endpointing: EndpointingParams
  bargeIn: BargeInParams
}

export interface ToolContext {
  signal: AbortSignal
  /** The tool found passages the agent's next words may come from: the transcript names them. */
  cite?(sources: TranscriptSource[]): void
}

export interface SessionTool {
  spec: ToolSpec
  /** Returns the text fed back to the LLM; throw to report a failure to it. */
  run(args: unknown, ctx: ToolContext): Promise<string>
  timeoutMs?: number
  /** Wait until the agent has finished saying this turn's words before running the tool. */
  afterSpeech?: boolean
}

/** The agent as this call sees it: a snapshot taken when the call starts. */
export interface AgentProfile {
  systemPrompt: string
  firstSpeaker: 'agent' | 'user'
  welcomeMessage: string
  /** May the caller talk over the welcome message (default true)? */
  welcomeInterruptible?: boolean
  /** Filled into `{{name}}` placeholders of the prompt and messages. */
  variables: Record<string, string>
  /** Spoken when a provider fails, before hanging up. */
  fallbackMessage: string
  /** Spoken once after `silenceTimeoutMs` of silence; the next silence hangs up. */
  repromptMessage: string
  /** Spoken at the maximum duration and by end_call without a message of its own. */
  goodbyeMessage: string
  silenceTimeoutMs: number
  maxDurationMs: number
  tools: SessionTool[]
  /** How long a pause ends the caller's turn (default 'normal'); see EndpointingMode. */
  endpointing?: EndpointingMode
  /**
   * Looked up for each caller turn before the LLM answers it (a knowledge base searched with the
   * caller's words): a note put before the LLM, and the passages it came from.
   */
  turnContext?(text: string): Promise<TurnContext | undefined>
}

export interface TurnContext {
  note: string
  sources: TranscriptSource[]
}

/**
 * The agent's endpointing: how much silence ends a caller's turn. `fast`, `normal` and
 * `patient` are presets that adapt to the words (shorter after a complete answer, longer after
 * a hesitation); a number is the base silence in ms (100-5000), adapted the same way.
 */
export type { EndpointingMode }

/** not_configured: the agent had nothing to converse with (no LLM serves it, no workflow), as opposed to a provider that failed. */
/** media_timeout: the far end's RTP stopped (the call's media watchdog ended it, not the session). */
export type EndReason = 'agent_hangup' | 'caller_hangup' | 'silence_timeout' | 'max_duration' | 'provider_error' | 'not_configured' | 'media_timeout'

/** One thing being said while it is produced: audio goes to playout as it arrives. */
export interface SpeechOut {
  speech: SpeechHandle
  /** The call's voice (rate already the call's). */
  tts: Tts
  play(frame: AudioFrame): void
  /** Everything queued so far may go out (the last partial frame too). */
  flush(): void
}

/**
 * What a brain may do with the call. The host owns listening, turn-taking, barge-in, playout,
 * guards, the transcript and the per-turn metrics; a brain only decides what to say.
 */
export interface BrainHost {
  /** Speaks fixed text ({{variables}} filled); resolves once played or interrupted, false if TTS failed. */
  say(text: string, opts?: { interruptible?: boolean; sources?: TranscriptSource[] }): Promise<{ ok: boolean; speech: SpeechHandle }>
  /** A streaming speak: the brain feeds audio itself (an LLM reply sentence by sentence). */
  /** `sources`: the passages these words may come from, for the transcript. */
  speak(interruptible: boolean, sources?: TranscriptSource[]): SpeechOut
  /** Says a last line (not interruptible), then ends the call; `sources`: the passages the line came from. */
  end(reason: EndReason, lastLine?: string, sources?: TranscriptSource[]): Promise<void>
  /** A provider failed for good: say the fallback line and hang up. */
  fail(provider: string, error: string): Promise<void>
  /** Stage latencies of the turn being answered (first value wins). */
  noteLatency(stages: Pick<TurnLatency, 'llmTtftMs' | 'ttsTtfbMs'>): void
  /** A tool call made and answered, for the call record. */
  noteTool(name: string, args: string, result: string): void
  usage: SessionUsage
  fill(text: string): string
  now(): number
}

export type BrainKind = 'workflow' | 'llm' | 'none'

/** Decides what the agent says: an LLM conversation, a workflow, or nothing (unconfigured). */
export interface Brain {
  readonly kind: BrainKind
  /** The call is up; speak first or wait for the caller. */
  start(host: BrainHost): void
  /** A finished caller turn: recognised speech, or a DTMF entry written `[DTMF] 123`. */
  onUserTurn(text: string, source: 'speech' | 'dtmf'): void
  /** One key as pressed (a brain may collect digits itself). */
  onDtmf(key: string): void
  /** It acts on each key as pressed (a workflow): a key, not the finished entry, is what it answers. */
  readonly answersKeys: boolean
  /** Still working on a reply (the silence guard waits). */
  readonly busy: boolean
  /** The session ended; nothing more will be said. */
  stop(): void
  /** Guidance from a supervisor for what it says next, never spoken; absent when the brain cannot take it (a workflow). */
  note?(text: string): void
  /**
   * What it would do if the caller's turn were `text`, without doing it (no side effects):
   * whether the words answer it, and the first sentence it would say. Undefined when it cannot
   * tell without acting (a tool, an LLM call).
   */
  preview?(text: string): Promise<BrainPreview | undefined>
}

export interface BrainPreview {
  /** The words answer what the agent waits for (a workflow edge or extraction matches); absent when it cannot tell. */
  answers?: boolean
  /** The first thing it would say (as it would pass it to say()), when known ahead. */
  reply?: string
}

export interface SessionHooks {
  /** One 20 ms frame of agent audio, to be sent now. */
  send(frame: AudioFrame): void
  /** Drops agent audio the call's media holds but has not sent (barge-in); returns its ms. */
  flush?(): number
  /** The session is over; hang the call up. Called once. */
  hangup(reason: EndReason): void
  /** A provider failed for good (the call then says the fallback line and ends). */
  providerFailed?(provider: string, error: string): void
  /**
   * A caller turn was committed; `turn` numbers it from 1. Its latencies fill in while the
   * answer starts: `turnMeasured` then gives them again.
   */
  turn?(text: string, latency: TurnLatency, turn: number): void
  /** Turn `turn`'s answer sent its first frame or its first voiced frame: the figures so far. */
  turnMeasured?(turn: number, latency: TurnLatency): void
  /** A line joined the transcript (what the call record keeps if the session's report never comes). */
  transcribed?(item: TranscriptItem): void
}

/** A knowledge-base passage an agent's line came from, so a wrong answer can be traced to its document. */
export interface TranscriptSource {
  passageId: number
  documentName: string
  section: string
  /** 0..1, the search's confidence. */
  score: number
}

export interface TranscriptItem {
  role: 'agent' | 'user'
  text: string
  /** Seconds from the start of the call, fractional. */
  timestamp: number
  /** An agent's line spoken from knowledge-base passages: which ones. */
  sources?: TranscriptSource[]
  /** An agent's line cut before its end (the caller spoke over it, or the call ended): `text` is what was said up to the cut. */
  interrupted?: true
}

export interface SessionUsage {
  /** cachedInputTokens: the part of inputTokens the provider's prompt cache served. */
  llm: { model: string; inputTokens: number; outputTokens: number; cachedInputTokens?: number }[]
  tts: { provider: string; characters: number; audioMs: number }[]
  stt: { provider: string; audioMs: number }[]
}

/** A tool the agent called: its arguments as the model gave them, the start of its result. */
export interface ToolCallRecord {
  name: string
  /** The parsed JSON object, or the raw string when it was not JSON. */
  arguments: unknown
  /** At most MAX_TOOL_RESULT characters. */
  result: string
  /** Seconds from the start of the call. */
  at: number
}

export interface SessionReport {
  transcript: TranscriptItem[]
  /** Absent from reports made before tool calls were kept. */
  toolCalls?: ToolCallRecord[]
  turns: TurnLatency[]
  latency: LatencySummary
  usage: SessionUsage
  endReason: EndReason | undefined
  durationMs: number
  /** Agent audio handed to the call, ms: 0 means the caller heard nothing from the agent. */
  agentAudioMs: number
  /**
   * With a welcome to say first: `spoken` to its end, `barged_in` (the caller spoke over it),
   * `cut` (the call ended or a provider failed while it played), `not_spoken` (not a sound of it).
   */
  welcome?: 'spoken' | 'barged_in' | 'cut' | 'not_spoken'
}

export const END_CALL_TOOL: ToolSpec = {
  name: 'end_call',
  description: 'Say goodbye and hang up the call. Use when the conversation is finished or the caller asks to end it.',
  parameters: { type: 'object', properties: { message: { type: 'string', description: 'the last thing to say' } } },
}
