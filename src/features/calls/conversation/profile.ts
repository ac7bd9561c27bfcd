// The agent snapshot as the voice session sees it: prompt, opening, fixed lines and guards.
import type { AgentSnapshot } from '../../agents/index.ts'
import type { Config } from '../../../platform/config/index.ts'
import type { AgentProfile, SessionTool } from '../../../realtime/voice/session/index.ts'

export type CallLines = Pick<
  Config,
  'CALL_MAX_DURATION_MS' | 'CALL_SILENCE_TIMEOUT_MS' | 'CALL_REPROMPT_MESSAGE' | 'CALL_GOODBYE_MESSAGE' | 'CALL_FALLBACK_MESSAGE'
>

/** Variables every call has, before a campaign contact's or the API caller's own. */
export function callVariables(call: { from: string; to: string; type: 'inbound' | 'outbound' | 'web' | 'stream' | 'test'; startedAt: Date }): Record<string, string> {
  // a web or stream call comes in like an inbound one: `from` is the member or program calling
  const caller = call.type === 'outbound' ? call.to : call.from
  const called = call.type === 'outbound' ? call.from : call.to
  return {
    caller_number: caller,
    called_number: called,
    call_type: call.type,
    current_time: call.startedAt.toISOString(),
    current_date: call.startedAt.toISOString().slice(0, 10),
  }
}

export function agentProfile(agent: AgentSnapshot, lines: CallLines, variables: Record<string, string>, tools: SessionTool[]): AgentProfile {
  const farewell = (agent.toolConfigs.end_call as { farewellMessage?: string } | undefined)?.farewellMessage
  return {
    systemPrompt: agent.prompt,
    firstSpeaker: agent.welcome.mode === 'agent_speaks_first' ? 'agent' : 'user',
    welcomeMessage: agent.welcome.message,
    welcomeInterruptible: agent.welcome.interruptible,
    variables,
    fallbackMessage: lines.CALL_FALLBACK_MESSAGE,
    repromptMessage: lines.CALL_REPROMPT_MESSAGE,
    goodbyeMessage: farewell?.trim() ? farewell : lines.CALL_GOODBYE_MESSAGE,
    silenceTimeoutMs: lines.CALL_SILENCE_TIMEOUT_MS,
    maxDurationMs: agent.maxDurationSec ? agent.maxDurationSec * 1000 : lines.CALL_MAX_DURATION_MS,
    tools,
    endpointing: agent.endpointing ?? 'normal',
  }
}
