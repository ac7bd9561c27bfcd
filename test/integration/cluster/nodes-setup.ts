// What a node needs to answer a number, set up through its own API, and its whole call list.
import type { NodeProcess } from './node-process.ts'

async function ok(res: Promise<{ status: number; body: any }>, what: string) {
  const r = await res
  if (r.status !== 200) throw new Error(`${what}: ${r.status} ${JSON.stringify(r.body)}`)
  return r.body
}

/** A payment method, an agent and the number `e164` on the trunk `trunkUri`, answered by the agent. */
export async function connectNumber(node: NodeProcess, e164: string, trunkUri: string): Promise<void> {
  const ws = (await ok(node.api('GET', '/api/workspaces'), 'workspaces')).workspaces[0].id
  const methods = await node.api('GET', `/api/workspaces/${ws}/payment-methods`)
  if (!methods.body.paymentMethods?.length) await ok(node.api('POST', `/api/workspaces/${ws}/payment-methods`, { body: { provider: 'manual', reference: 'cluster test' } }), 'payment method')
  const agent = (await ok(node.api('POST', '/api/agents', { body: { name: 'Front desk', template: 'receptionist' } }), 'agent')).agent.id
  const number = (await ok(node.api('POST', '/api/phone-numbers', { body: { e164, provider: 'sip', sipTerminationUri: trunkUri, sipOutboundTransport: 'udp' } }), 'number'))
    .phoneNumber.id
  await ok(node.api('PATCH', `/api/phone-numbers/${number}`, { body: { inboundAgentId: agent } }), 'assign agent')
}

/** Every call the node lists, across pages. */
export async function allCalls(node: NodeProcess): Promise<any[]> {
  const calls: any[] = []
  let cursor: string | null = null
  do {
    const page: { body: { calls: any[]; nextCursor: string | null } } = await node.api('GET', `/api/calls?limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`)
    calls.push(...page.body.calls)
    cursor = page.body.nextCursor
  } while (cursor)
  return calls
}

const GREETING = {
  nodes: [
    { id: 'start', type: 'start', config: { text: 'Hello, this is Acme calling.' } },
    { id: 'bye', type: 'end', config: { text: 'Goodbye.' } },
  ],
  edges: [{ from: 'start', to: 'bye' }],
}

/** Places one outbound call (a greeting, then the agent hangs up) from a number on the trunk `trunkUri`; returns its id. */
export async function dialThrough(node: NodeProcess, trunkUri: string): Promise<string> {
  const ws = (await ok(node.api('GET', '/api/workspaces'), 'workspaces')).workspaces[0].id
  const methods = await node.api('GET', `/api/workspaces/${ws}/payment-methods`)
  if (!methods.body.paymentMethods?.length) await ok(node.api('POST', `/api/workspaces/${ws}/payment-methods`, { body: { provider: 'manual', reference: 'cluster test' } }), 'payment method')
  const agent = (await ok(node.api('POST', '/api/agents', { body: { name: 'Caller', agentType: 'outbound' } }), 'agent')).agent.id
  await ok(node.api('PUT', `/api/agents/${agent}/workflow`, { body: GREETING }), 'workflow')
  const e164 = `+1415${Math.floor(2_000_000 + Math.random() * 7_999_999)}`
  const number = (await ok(node.api('POST', '/api/phone-numbers', { body: { e164, provider: 'sip', sipTerminationUri: trunkUri, sipOutboundTransport: 'udp' } }), 'number'))
    .phoneNumber.id
  await ok(node.api('PATCH', `/api/phone-numbers/${number}`, { body: { outboundAgentId: agent } }), 'assign agent')
  return (await ok(node.api('POST', '/api/calls', { body: { phoneNumberId: number, to: '+14155550199' } }), 'place call')).call.id
}
