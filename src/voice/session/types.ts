import type { AudioFrame } from '../audio.ts'
import type { Llm, ToolSpec } from '../llm/contract.ts'
import type { Stt } from '../stt/contract.ts'
import type { Tts } from '../tts/contract.ts'
import type { BargeInParams } from '../turn/barge-in.ts'
import type { EndpointingParams } from '../turn/endpointing.ts'
import type { LatencySummary, TurnLatency } from '../turn/metrics.ts'
import type { VadModel } from '../vad/contract.ts'
import type { HysteresisParams } from '../vad/hysteresis.ts'

export interface SessionEngines {
  vad: VadModel
  /** Without STT the caller is understood through DTMF only. */
  stt: Stt | undefined
  /** Unused (and may be absent) when a brain other than the LLM runs the conversation. */
  llm?: Llm
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
}

export type EndReason = 'agent_hangup' | 'caller_hangup' | 'silence_timeout' | 'max_duration' | 'provider_error'

/** What a brain may do with the call: speak (resolves once played or interrupted) and end it. */
export interface BrainHost {
  say(text: string): Promise<boolean>
  end(reason: EndReason, lastLine?: string): Promise<void>
}

/**
 * Decides what the agent says instead of the LLM (a workflow, for instance). The session still
 * owns listening, turn-taking, barge-in, playback, guards and the transcript.
 */
export interface Brain {
  /** The call is up; speak first or wait for the caller. */
  start(host: BrainHost): void
  /** A finished caller turn (speech recognised). */
  onUserText(text: string): void
  /** One key as pressed; the brain does its own digit collection. */
  onDtmf(key: string): void
  /** The session ended; nothing more will be said. */
  stop(): void
}

export interface SessionHooks {
  /** One 20 ms frame of agent audio, to be sent now. */
  send(frame: AudioFrame): void
  /** The session is over; hang the call up. Called once. */
  hangup(reason: EndReason): void
}

export interface TranscriptItem {
  role: 'agent' | 'user'
  text: string
  /** Seconds from the start of the call, fractional. */
  timestamp: number
}

export interface SessionUsage {
  llm: { model: string; inputTokens: number; outputTokens: number }[]
  tts: { provider: string; characters: number; audioMs: number }[]
  stt: { provider: string; audioMs: number }[]
}

export interface SessionReport {
  transcript: TranscriptItem[]
  turns: TurnLatency[]
  latency: LatencySummary
  usage: SessionUsage
  endReason: EndReason | undefined
  durationMs: number
}

export const END_CALL_TOOL: ToolSpec = {
  name: 'end_call',
  description: 'Say goodbye and hang up the call. Use when the conversation is finished or the caller asks to end it.',
  parameters: { type: 'object', properties: { message: { type: 'string', description: 'the last thing to say' } } },
}
