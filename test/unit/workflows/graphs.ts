import type { Condition, WorkflowEdge, WorkflowGraph, WorkflowNode } from '../../../src/features/workflows/workflow.model.ts'

/** Short builders for test graphs: `edge('a', 'b', kw('yes'))`. */
export const node = (id: string, type: WorkflowNode['type'], config: Record<string, unknown> = {}) =>
  ({ id, type, config }) as WorkflowNode
export const edge = (from: string, to: string, condition?: Condition, id?: string): WorkflowEdge => ({
  from,
  to,
  ...(condition ? { condition } : {}),
  ...(id ? { id } : {}),
})
export const kw = (...keywords: string[]): Condition => ({ type: 'keywords', keywords })
export const dtmf = (digits: string): Condition => ({ type: 'dtmf', digits })
export const re = (pattern: string, flags?: string): Condition => ({ type: 'regex', pattern, ...(flags !== undefined ? { flags } : {}) })
export const v = (variable: string, op: Extract<Condition, { type: 'variable' }>['op'], value?: string | number | boolean): Condition => ({
  type: 'variable',
  variable,
  op,
  ...(value !== undefined ? { value } : {}),
})
export const intent = (text: string): Condition => ({ type: 'intent', intent: text })
export const otherwise: Condition = { type: 'else' }

export const graph = (nodes: WorkflowNode[], edges: WorkflowEdge[], maxVisits?: number): WorkflowGraph => ({
  nodes,
  edges,
  settings: maxVisits ? { maxVisits } : {},
})

/** Reception IVR: greeting, a menu by keyword or key, a PIN collected with reprompts, transfer and end. */
export const reception = graph(
  [
    node('start', 'start', { text: 'Hello {{name}}, thanks for calling {{company}}.' }),
    node('menu', 'say', { text: 'Say sales or press 1; say support or press 2.' }),
    node('sales', 'transfer', { target: '+14155551111', text: 'Connecting you to sales.' }),
    node('ask_pin', 'collect', { prompt: 'Please tell me your four digit PIN.', kind: 'digits', variable: 'pin', minDigits: 4, maxDigits: 4, maxAttempts: 3 }),
    node('check_pin', 'condition'),
    node('vip', 'transfer', { target: 'sip:vip@pbx.example', text: 'Putting you through to the VIP desk.' }),
    node('bye', 'end', { text: 'Your PIN {{pin}} is noted. Goodbye {{name}}.' }),
    node('human', 'transfer', { target: '+14155552222', text: 'Let me get someone to help.' }),
  ],
  [
    edge('start', 'menu'),
    edge('menu', 'sales', kw('sales', 'buy something')),
    edge('menu', 'sales', dtmf('1')),
    edge('menu', 'ask_pin', kw('support', 'help')),
    edge('menu', 'ask_pin', dtmf('2')),
    edge('ask_pin', 'human', v('pin', 'unset')),
    edge('ask_pin', 'check_pin'),
    edge('check_pin', 'vip', v('pin', 'gte', 9000)),
    edge('check_pin', 'bye', otherwise),
  ],
)
