// The agents the understanding corpus talks to. Four are the templates of
// src/features/agents/templates.ts as a new user gets them (POST /api/agents {template}); the
// others are small workflows of the bench's own: the clinic's knowledge base behind an answer
// node, collect nodes for numbers, yes/no and what a caller says (each repeats or confirms what
// it took, so the call's record shows it), and a long interruptible welcome for barge-in.
import { AGENT_TEMPLATES } from '../../../src/features/agents/templates.ts'
import { WELCOME } from '../conversation/script.ts'

export interface Graph {
  nodes: { id: string; type: string; config: Record<string, unknown> }[]
  edges: { from: string; to: string; condition?: Record<string, unknown> }[]
}

export const TEMPLATE_AGENTS = ['receptionist', 'booking', 'sales', 'followup'] as const
export const OWN_AGENTS = ['clinic', 'digits', 'confirm', 'capture', 'welcome'] as const
export type AgentName = (typeof TEMPLATE_AGENTS)[number] | (typeof OWN_AGENTS)[number]
export const AGENT_NAMES: readonly AgentName[] = [...TEMPLATE_AGENTS, ...OWN_AGENTS]

const bye = { id: 'bye', type: 'end', config: { text: 'Thank you for calling. Goodbye.' } }

const clinic: Graph = {
  nodes: [
    { id: 'start', type: 'start', config: { text: 'Harbor Family Clinic. What would you like to know?' } },
    { id: 'faq', type: 'answer', config: {} },
    { id: 'sorry', type: 'say', config: { text: 'Sorry, I do not have an answer to that. Please ask me another question.' } },
    bye,
  ],
  edges: [
    { from: 'start', to: 'faq' },
    { from: 'faq', to: 'bye', condition: { type: 'keywords', keywords: ['goodbye', 'bye'] } },
    { from: 'faq', to: 'sorry', condition: { type: 'no_match' } },
    { from: 'sorry', to: 'faq' },
  ],
}

/** A collect node asked once, then `taken` (its variable set) or `missed`. */
function collect(kind: string, prompt: string, taken: { id: string; text: string }, extra: Record<string, unknown> = {}): Graph {
  return {
    nodes: [
      { id: 'start', type: 'start', config: {} },
      { id: 'ask', type: 'collect', config: { prompt, kind, variable: 'value', maxAttempts: 1, ...extra } },
      { id: taken.id, type: 'end', config: { text: taken.text } },
      { id: 'missed', type: 'end', config: { text: 'Sorry, I did not get that. Goodbye.' } },
    ],
    edges: [
      { from: 'start', to: 'ask' },
      { from: 'ask', to: taken.id, condition: { type: 'variable', variable: 'value', op: 'set' } },
      { from: 'ask', to: 'missed' },
    ],
  }
}

const digits = collect('digits', 'Hello. Please say the number after this sentence.', { id: 'echo', text: 'I have {{value}}. Goodbye.' }, { minDigits: 3, maxDigits: 19 })
const capture = collect('text', 'Hello. Please say it after this sentence.', { id: 'noted', text: 'Thank you, I have noted that. Goodbye.' })

const confirm: Graph = {
  nodes: [
    { id: 'start', type: 'start', config: {} },
    { id: 'ask', type: 'collect', config: { prompt: 'Hello. Is your visit on Tuesday still going ahead?', kind: 'yes_no', variable: 'value', maxAttempts: 1 } },
    { id: 'yes', type: 'end', config: { text: 'Thank you, see you on Tuesday. Goodbye.' } },
    { id: 'no', type: 'end', config: { text: 'Thank you, we will cancel it. Goodbye.' } },
    { id: 'unclear', type: 'end', config: { text: 'Sorry, I did not catch that. Goodbye.' } },
  ],
  edges: [
    { from: 'start', to: 'ask' },
    { from: 'ask', to: 'yes', condition: { type: 'variable', variable: 'value', op: 'eq', value: 'yes' } },
    { from: 'ask', to: 'no', condition: { type: 'variable', variable: 'value', op: 'eq', value: 'no' } },
    { from: 'ask', to: 'unclear' },
  ],
}

/** bench:conversation's welcome (about 12 s), listening for a booking. */
const welcome: Graph = {
  nodes: [
    { id: 'start', type: 'start', config: { text: WELCOME } },
    { id: 'book', type: 'end', config: { text: 'Of course. We will call you back to book. Goodbye.' } },
    bye,
  ],
  edges: [
    { from: 'start', to: 'book', condition: { type: 'keywords', keywords: ['book', 'appointment', 'visit'] } },
    { from: 'start', to: 'bye' },
  ],
}

const OWN: Record<(typeof OWN_AGENTS)[number], Graph> = { clinic, digits, confirm, capture, welcome }

/** The workflow an agent runs: the template's as shipped, or the bench's own. */
export function graphOf(agent: AgentName): Graph {
  if ((TEMPLATE_AGENTS as readonly string[]).includes(agent)) return AGENT_TEMPLATES[agent]!.workflow as Graph
  return OWN[agent as (typeof OWN_AGENTS)[number]]
}

/** Agents with the clinic's documents linked (the others have no knowledge base). */
export const KNOWLEDGE_AGENTS: readonly AgentName[] = ['clinic']
