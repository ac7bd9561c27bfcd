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
      { id: 'start', type: 'start', config: { text: 'Hello, thank you for calling. For our opening hours press 1 or say hours. To leave a message press 2 or say message. Or ask me your question.' } },
      { id: 'hours', type: 'say', config: { text: 'We are open Monday to Friday, from nine in the morning until five in the evening.' } },
      // a collect node waits for the caller's words (a say node with only an else edge would not)
      { id: 'message', type: 'collect', config: { prompt: 'Please leave your message after this sentence, and we will call you back.', kind: 'text', variable: 'message' } },
      { id: 'noted', type: 'say', config: { text: 'Thank you, we have your message.' } },
      // answers from the agent's knowledge bases (knowledgeBaseIds), one question after another until
      // the caller says goodbye; with no base linked, every question is no_match
      { id: 'faq', type: 'answer', config: {} },
      { id: 'unknown', type: 'say', config: { text: 'Sorry, I do not have an answer to that.' } },
      { id: 'bye', type: 'end', config: { text: 'Thank you for calling. Goodbye.' } },
    ],
    edges: [
      { from: 'start', to: 'hours', condition: { type: 'dtmf', digits: '1' } },
      { from: 'start', to: 'hours', condition: { type: 'keywords', keywords: ['hours', 'open', 'opening'] } },
      { from: 'start', to: 'message', condition: { type: 'dtmf', digits: '2' } },
      { from: 'start', to: 'message', condition: { type: 'keywords', keywords: ['message'] } },
      { from: 'start', to: 'faq', condition: { type: 'else' } },
      { from: 'faq', to: 'bye', condition: { type: 'keywords', keywords: ['goodbye', 'bye'] } },
      { from: 'faq', to: 'unknown', condition: { type: 'no_match' } },
      { from: 'unknown', to: 'message' },
      { from: 'hours', to: 'bye' },
      { from: 'message', to: 'noted', condition: { type: 'else' } },
      { from: 'noted', to: 'bye' },
    ],
  },
}

const dtmf = (digits: string) => ({ type: 'dtmf', digits })
const words = (...keywords: string[]) => ({ type: 'keywords', keywords })

const booking: AgentTemplate = {
  agent: {
    role: 'booking',
    agentType: 'inbound',
    promptDraft: 'You book appointments for {{business}}. Ask for the day, the time and a name, then repeat them back.',
    promptPublished: 'You book appointments for {{business}}. Ask for the day, the time and a name, then repeat them back.',
  },
  workflow: {
    nodes: [
      { id: 'start', type: 'start', config: { text: 'Hello, thank you for calling. To book an appointment press 1 or say book. To change or cancel one press 2 or say change.' } },
      { id: 'book', type: 'collect', config: { prompt: 'After this sentence, please say your name and the day and time that suit you. We will call you back to confirm.', kind: 'text', variable: 'request' } },
      { id: 'change', type: 'collect', config: { prompt: 'After this sentence, please say your name and the appointment you want to change or cancel. We will call you back.', kind: 'text', variable: 'request' } },
      { id: 'noted', type: 'say', config: { text: 'Thank you, we have your request.' } },
      { id: 'bye', type: 'end', config: { text: 'Thank you for calling. Goodbye.' } },
    ],
    edges: [
      { from: 'start', to: 'book', condition: dtmf('1') },
      { from: 'start', to: 'book', condition: words('book', 'appointment') },
      { from: 'start', to: 'change', condition: dtmf('2') },
      { from: 'start', to: 'change', condition: words('change', 'cancel') },
      { from: 'start', to: 'bye', condition: { type: 'else' } },
      { from: 'book', to: 'noted', condition: { type: 'else' } },
      { from: 'change', to: 'noted', condition: { type: 'else' } },
      { from: 'noted', to: 'bye' },
    ],
  },
}

// Outbound roles place the call: the person answering did not call anyone, so nothing thanks
// them for calling; the first sentence says who calls and why, and how to end the call.
const sales: AgentTemplate = {
  agent: {
    role: 'sales',
    agentType: 'outbound',
    promptDraft: 'You are calling on behalf of {{business}} to offer {{offer}}. Be brief, and end the call politely as soon as the person is not interested.',
    promptPublished: 'You are calling on behalf of {{business}} to offer {{offer}}. Be brief, and end the call politely as soon as the person is not interested.',
  },
  workflow: {
    nodes: [
      { id: 'start', type: 'start', config: { text: 'Hello, this is an automated call from our sales team. To hear about our offer press 1 or say yes. If you are not interested press 2 or say no.' } },
      { id: 'offer', type: 'say', config: { text: 'This month our service costs twenty percent less. To have someone call you back with the details press 1 or say call me.' } },
      { id: 'callback', type: 'say', config: { text: 'Thank you, someone from our team will call you back.' } },
      { id: 'bye', type: 'end', config: { text: 'Thank you for your time. Goodbye.' } },
    ],
    edges: [
      { from: 'start', to: 'offer', condition: dtmf('1') },
      { from: 'start', to: 'offer', condition: words('yes', 'offer') },
      { from: 'start', to: 'bye', condition: { type: 'else' } },
      { from: 'offer', to: 'callback', condition: dtmf('1') },
      { from: 'offer', to: 'callback', condition: words('call', 'yes') },
      { from: 'offer', to: 'bye', condition: { type: 'else' } },
      { from: 'callback', to: 'bye' },
    ],
  },
}

const followup: AgentTemplate = {
  agent: {
    role: 'followup',
    agentType: 'outbound',
    promptDraft: 'You are calling on behalf of {{business}} to follow up on a recent visit. Ask whether everything went well and offer a call back.',
    promptPublished: 'You are calling on behalf of {{business}} to follow up on a recent visit. Ask whether everything went well and offer a call back.',
  },
  workflow: {
    nodes: [
      { id: 'start', type: 'start', config: { text: 'Hello, this is an automated follow-up call about your recent visit. If everything went well press 1 or say yes. If you would like us to call you back press 2 or say call back.' } },
      { id: 'glad', type: 'end', config: { text: 'We are glad to hear it. Thank you for your time. Goodbye.' } },
      { id: 'message', type: 'collect', config: { prompt: 'After this sentence, please tell us briefly what we can help with.', kind: 'text', variable: 'message' } },
      { id: 'noted', type: 'say', config: { text: 'Thank you, someone will call you back.' } },
      { id: 'bye', type: 'end', config: { text: 'Thank you for your time. Goodbye.' } },
    ],
    edges: [
      { from: 'start', to: 'glad', condition: dtmf('1') },
      { from: 'start', to: 'glad', condition: words('yes', 'good', 'fine') },
      { from: 'start', to: 'message', condition: dtmf('2') },
      { from: 'start', to: 'message', condition: words('call', 'back') },
      { from: 'start', to: 'bye', condition: { type: 'else' } },
      { from: 'message', to: 'noted', condition: { type: 'else' } },
      { from: 'noted', to: 'bye' },
    ],
  },
}

export const AGENT_TEMPLATES: Record<string, AgentTemplate> = { receptionist, booking, sales, followup }
export const TEMPLATE_NAMES = Object.keys(AGENT_TEMPLATES)

/**
 * Pure: the agent fields `template` gives. `business` is written in place of `{{business}}` in
 * its prompts; without it the placeholder stays, for an outbound contact's column to fill.
 */
export function templateAgent(template: AgentTemplate, business?: string): AgentTemplate['agent'] {
  if (business === undefined) return template.agent
  const fill = (text: string | undefined) => text?.replaceAll('{{business}}', business.trim())
  return { ...template.agent, promptDraft: fill(template.agent.promptDraft), promptPublished: fill(template.agent.promptPublished) }
}
