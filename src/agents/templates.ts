// Starting points for POST /api/agents {template}: an agent and, for offline use, a workflow
// the operator then edits. The receptionist needs no LLM and no STT (keys work without either).
import type { CreateAgentBody } from './agents.model.ts'

export interface AgentTemplate {
  /** Fields the request body does not set come from here. */
  agent: Omit<CreateAgentBody, 'name'>
  /** Attached with PUT /api/agents/{id}/workflow semantics (validated the same way). */
  workflow: { nodes: unknown[]; edges: unknown[] }
}

const receptionist: AgentTemplate = {
  agent: {
    role: 'reception',
    agentType: 'inbound',
    promptDraft: 'You are the friendly receptionist of {{business}}. Answer in one or two short sentences.',
    promptPublished: 'You are the friendly receptionist of {{business}}. Answer in one or two short sentences.',
  },
  workflow: {
    nodes: [
      { id: 'start', type: 'start', config: { text: 'Hello, thank you for calling. For our opening hours press 1 or say hours. To leave a message press 2 or say message.' } },
      { id: 'hours', type: 'say', config: { text: 'We are open Monday to Friday, from nine in the morning until five in the evening.' } },
      { id: 'message', type: 'say', config: { text: 'Please leave your message after this sentence, and we will call you back.' } },
      { id: 'listen', type: 'say', config: { text: 'Thank you, we have your message.' } },
      { id: 'bye', type: 'end', config: { text: 'Thank you for calling. Goodbye.' } },
    ],
    edges: [
      { from: 'start', to: 'hours', condition: { type: 'dtmf', digits: '1' } },
      { from: 'start', to: 'hours', condition: { type: 'keywords', keywords: ['hours', 'open', 'opening'] } },
      { from: 'start', to: 'message', condition: { type: 'dtmf', digits: '2' } },
      { from: 'start', to: 'message', condition: { type: 'keywords', keywords: ['message'] } },
      { from: 'start', to: 'bye', condition: { type: 'else' } },
      { from: 'hours', to: 'bye' },
      { from: 'message', to: 'listen', condition: { type: 'else' } },
      { from: 'listen', to: 'bye' },
    ],
  },
}

export const AGENT_TEMPLATES: Record<string, AgentTemplate> = { receptionist }
export const TEMPLATE_NAMES = Object.keys(AGENT_TEMPLATES)
