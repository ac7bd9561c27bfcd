// Checks across the fields of a test case that its schema cannot say. Pure: every issue names
// its field, so a 422 tells the operator exactly what to fix.
import type { FieldIssue } from '../../platform/errors.ts'
import { regexProblem } from '../../platform/regex/index.ts'
import { type CallerVoice, DEFAULT_CALLER_VOICE, type Expectation, type Turn } from './agent-tests.model.ts'

export const CALL_OUTCOMES = [
  'completed', 'transferred', 'busy', 'no_answer', 'not_found', 'declined', 'cancelled', 'failed',
  'silence_timeout', 'max_duration', 'provider_error', 'not_configured', 'shutdown',
] as const

/** The agent's own voice, as its record holds it. */
export interface AgentVoice {
  provider: string
  voiceId: string
}

/** The caller's voice with its defaults filled in. */
export function callerVoiceOf(given: CallerVoice | undefined): Required<Pick<CallerVoice, 'engine' | 'voice' | 'phoneBand'>> & CallerVoice {
  const engine = given?.engine ?? DEFAULT_CALLER_VOICE.engine
  const voice = given?.voice ?? DEFAULT_VOICE_OF[engine]
  return { ...given, engine, voice, phoneBand: given?.phoneBand ?? false }
}

const DEFAULT_VOICE_OF: Record<CallerVoice['engine'], string> = { 'espeak-ng': 'en-us', festival: 'kal_diphone', flite: 'rms' }

export function callerIssues(turns: readonly Turn[] | undefined, voice: CallerVoice | undefined, agentVoice: AgentVoice): FieldIssue[] {
  const issues: FieldIssue[] = []
  if (turns && !turns.some((t) => t.type !== 'silence')) issues.push({ path: 'caller.turns', message: 'needs at least one say, keys or interrupt turn' })
  const v = callerVoiceOf(voice)
  if (v.engine === agentVoice.provider && v.voice === agentVoice.voiceId) {
    issues.push({ path: 'caller.voice', message: `must differ from the agent's voice (${agentVoice.provider} ${agentVoice.voiceId}): the case tests what the agent hears` })
  }
  return issues
}

export function expectationIssues(expectations: readonly Expectation[]): FieldIssue[] {
  const issues: FieldIssue[] = []
  expectations.forEach((e, i) => {
    const at = `expectations[${i}]`
    if (e.type === 'said') {
      if ((e.phrase === undefined) === (e.pattern === undefined)) issues.push({ path: at, message: 'give exactly one of phrase and pattern' })
      if (e.flags !== undefined && e.pattern === undefined) issues.push({ path: `${at}.flags`, message: 'is only for a pattern' })
      const problem = e.pattern === undefined ? undefined : regexProblem(e.pattern, e.flags)
      if (problem) issues.push({ path: `${at}.pattern`, message: problem })
    }
    if (e.type === 'ended' && e.outcome !== undefined && !(CALL_OUTCOMES as readonly string[]).includes(e.outcome)) {
      issues.push({ path: `${at}.outcome`, message: `must be one of ${CALL_OUTCOMES.join(', ')}` })
    }
  })
  return issues
}
