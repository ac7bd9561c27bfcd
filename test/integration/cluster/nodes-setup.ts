// What a node needs to answer a number, set up through its own API, and its whole call list.
import type { NodeProcess } from './sqlite-node.ts'

async function ok(res: Promise<{ status: number; body: any }>, what: string) {
  const r = await res
  if (r.status !== 200) throw new Error(`${what}: ${r.status} ${JSON.stringify(r.body)}`)
  return r.body
}

/** A payment method, an agent and the number `e164` on the trunk `trunkUri`, answered by the agent. */
export async function connectNumber(node: NodeProcess, e164: string, trunkUri: string): Promise<void> {
  const ws = (await ok(node.api('GET', '/api/workspaces'), 'workspaces')).workspaces[0].id
  await ok(node.api('POST', `/api/workspaces/${ws}/payment-methods`, { body: { provider: 'manual', reference: 'cluster test' } }), 'payment method')
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
