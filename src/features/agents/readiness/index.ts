// Can this agent hold a conversation on this appliance, and what runs it? The same decision
// picks the brain of a live call, so what the API shows is what a caller gets.
import { t } from 'elysia'
import { llmRoute, type Serving, voiceProviderOf } from '../../../realtime/voice/registry/index.ts'

export type BrainKind = 'workflow' | 'llm' | 'none'

export interface Readiness {
  canConverse: boolean
  brain: BrainKind
  /** Why the agent cannot converse, or what it will do differently from what it asks for. */
  problems: string[]
}

export interface ReadinessInput {
  llmModel: string
  voice: { provider: string; voiceId: string }
  hasWorkflow: boolean
}

/** A configured provider the latest probe could not reach (src/app/startup/probes.ts). */
export interface UnreachableProvider {
  kind: string
  provider: string
  /** Names the provider and its URL, without credentials. */
  message: string
}

/**
 * `unreachable` only adds problems (and makes an LLM agent unable to converse while its backend
 * cannot be reached); the brain stays what the configuration gives, so a live call still tries.
 */
export function agentReadiness(agent: ReadinessInput, serving: Serving, unreachable: UnreachableProvider[] = []): Readiness {
  const problems: string[] = []
  const route = llmRoute(agent.llmModel, serving)
  let brain: BrainKind
  if (agent.hasWorkflow) brain = 'workflow'
  else if (route.ok) brain = 'llm'
  else {
    brain = 'none'
    problems.push(`${route.problem}, and the agent has no workflow: calls are greeted and hung up`)
  }
  if (!serving.voice.includes(agent.voice.provider)) {
    problems.push(`the voice provider '${agent.voice.provider}' has no API key here: calls use the default voice`)
  } else if (!voiceProviderOf(agent.voice.provider)?.knowsVoice(agent.voice.voiceId)) {
    problems.push(`${agent.voice.provider} has no voice '${agent.voice.voiceId}': calls use the default voice`)
  }
  let reachable = true
  if (route.ok && brain === 'llm') {
    const down = unreachable.find((u) => u.kind === 'llm' && u.provider === route.backend)
    if (down) {
      reachable = false
      problems.push(`${down.message}: callers hear the fallback message and are hung up`)
    }
  }
  const voiceDown = unreachable.find((u) => u.kind === 'tts' && u.provider === agent.voice.provider)
  if (voiceDown) problems.push(voiceDown.message)
  return { canConverse: brain !== 'none' && reachable, brain, problems }
}

export const ReadinessSchema = t.Object(
  {
    canConverse: t.Boolean({ description: 'a caller gets a conversation (false: greeted, told there are technical difficulties, hung up)' }),
    brain: t.Union([t.Literal('workflow'), t.Literal('llm'), t.Literal('none')], { description: 'what runs calls: the agent\'s workflow, the LLM serving its llmModel, or nothing' }),
    problems: t.Array(t.String(), { description: 'why it cannot converse, or where calls differ from what the agent asks for' }),
  },
  { description: 'Computed from the agent, its workflow and what this appliance is configured with; not stored' },
)
