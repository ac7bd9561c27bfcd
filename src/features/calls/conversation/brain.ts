// The one place a call's brain is picked: its workflow when the agent has one, else the LLM
// serving the agent's model, else none (greet, explain, hang up). Readiness uses the same rule.
import type { AgentSnapshot } from '../../agents/index.ts'
import { agentReadiness } from '../../agents/readiness/index.ts'
import type { CallEngines, VoiceEngines } from '../../../realtime/voice/index.ts'
import { llmBrain, noBrain } from '../../../realtime/voice/brain/index.ts'
import type { AgentProfile, Brain } from '../../../realtime/voice/session/index.ts'
import type { Llm } from '../../../realtime/voice/llm/index.ts'
import type { WorkflowGraph } from '../../workflows/call/index.ts'
import { sessionTools, type CallControls } from './tools.ts'
import { workflowBrain } from './workflow-brain.ts'
import { knowledgeContext } from './knowledge-tool.ts'

export interface BrainDeps {
  voice: VoiceEngines
  workflowLlm?: Llm
  maxVisits: number
  allowPrivateTools: boolean
}

export interface CallBrainInput {
  agent: AgentSnapshot
  profile: AgentProfile
  variables: Record<string, string>
  engines: CallEngines
  controls: CallControls
  /** The agent's workflow (read by the caller), if it has one. */
  graph: WorkflowGraph | undefined
}

export async function brainOfCall(d: BrainDeps, c: CallBrainInput): Promise<Brain> {
  const graph = c.graph
  const { brain } = agentReadiness({ ...c.agent, hasWorkflow: graph !== undefined }, d.voice.serving)
  if (brain === 'workflow' && graph) {
    return workflowBrain({
      graph,
      variables: c.variables,
      llm: d.workflowLlm,
      maxVisits: d.maxVisits,
      fallbackMessage: c.profile.fallbackMessage,
      transfer: c.controls.transfer,
      optOut: c.controls.optOut,
      knowledge: c.agent.knowledgeBaseIds?.length ? { search: (query, { maxChars }) => c.controls.searchKnowledge(query, { limit: 1, maxChars }) } : undefined,
    })
  }
  if (brain === 'llm' && c.engines.llm) {
    const tools = sessionTools(c.agent, c.controls, { allowPrivate: d.allowPrivateTools })
    return llmBrain(c.engines.llm, { ...c.profile, tools, turnContext: knowledgeContext(c.agent, c.controls.searchKnowledge) })
  }
  return noBrain(c.profile.firstSpeaker === 'agent' ? c.profile.welcomeMessage : '', c.profile.fallbackMessage)
}
