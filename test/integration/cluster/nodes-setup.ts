// Appliance nodes on one PostgreSQL database (test/helpers/cluster-node.ts), with what the SIP
// and recording tests need on top: each node's API client, its SIP URI for Kamailio's list, a
// number answered by an agent, outbound calls, and which node took how many calls.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import pg from 'pg'
import { apiClient, type Api } from '../../helpers/appliance.ts'
import { startClusterNode, type ClusterNode } from '../../helpers/cluster-node.ts'

export interface Node extends ClusterNode {
  api: Api
  adminKey: string
  sipUri: string
}

/** Starts one node per name on `databaseUrl`, one after the other: the first migrates and bootstraps, the rest join with its secret key. */
export async function startNodes(databaseUrl: string, names: string[], env: (i: number) => Record<string, string> = () => ({})): Promise<Node[]> {
  const nodes: Node[] = []
  for (const [i, nodeId] of names.entries()) {
    const first = nodes[0]
    const node = await startClusterNode({ databaseUrl, nodeId, env: env(i), secretKeyFile: first && join(first.dataDir, 'secret.key') })
    const adminKey = first?.adminKey ?? readFileSync(join(node.dataDir, 'admin-api-key'), 'utf8').trim()
    nodes.push(Object.assign(node, { api: apiClient(node.url, adminKey), adminKey, sipUri: `sip:127.0.0.1:${node.sipPort}` }))
  }
  return nodes
}

async function ok(res: Promise<{ status: number; body: any }>, what: string) {
  const r = await res
  if (r.status !== 200) throw new Error(`${what}: ${r.status} ${JSON.stringify(r.body)}`)
  return r.body
}

async function paymentMethod(node: Node): Promise<void> {
  const ws = (await ok(node.api('GET', '/api/workspaces'), 'workspaces')).workspaces[0].id
  const methods = await node.api('GET', `/api/workspaces/${ws}/payment-methods`)
  if (!methods.body.paymentMethods?.length) await ok(node.api('POST', `/api/workspaces/${ws}/payment-methods`, { body: { provider: 'manual', reference: 'cluster test' } }), 'payment method')
}

/** An agent answering the number `e164` on the trunk `trunkUri` (the shared database serves every node). */
export async function connectNumber(node: Node, e164: string, trunkUri: string): Promise<void> {
  await paymentMethod(node)
  const agent = (await ok(node.api('POST', '/api/agents', { body: { name: 'Front desk', template: 'receptionist' } }), 'agent')).agent.id
  const number = (await ok(node.api('POST', '/api/phone-numbers', { body: { e164, provider: 'sip', sipTerminationUri: trunkUri, sipOutboundTransport: 'udp' } }), 'number'))
    .phoneNumber.id
  await ok(node.api('PATCH', `/api/phone-numbers/${number}`, { body: { inboundAgentId: agent } }), 'assign agent')
}

const GREETING = {
  nodes: [
    { id: 'start', type: 'start', config: { text: 'Hello, this is Acme calling.' } },
    { id: 'bye', type: 'end', config: { text: 'Goodbye.' } },
  ],
  edges: [{ from: 'start', to: 'bye' }],
}

/** Places one outbound call from `node` (a greeting, then the agent hangs up) from a new number on the trunk `trunkUri`; returns its id. */
export async function dialThrough(node: Node, trunkUri: string): Promise<string> {
  await paymentMethod(node)
  const agent = (await ok(node.api('POST', '/api/agents', { body: { name: 'Caller', agentType: 'outbound' } }), 'agent')).agent.id
  await ok(node.api('PUT', `/api/agents/${agent}/workflow`, { body: GREETING }), 'workflow')
  const e164 = `+1415${Math.floor(2_000_000 + Math.random() * 7_999_999)}`
  const number = (await ok(node.api('POST', '/api/phone-numbers', { body: { e164, provider: 'sip', sipTerminationUri: trunkUri, sipOutboundTransport: 'udp' } }), 'number'))
    .phoneNumber.id
  await ok(node.api('PATCH', `/api/phone-numbers/${number}`, { body: { outboundAgentId: agent } }), 'assign agent')
  return (await ok(node.api('POST', '/api/calls', { body: { phoneNumberId: number, to: '+14155550199' } }), 'place call')).call.id
}

export interface CallTally {
  /** Calls by the node that took them (calls.node_id). */
  byNode: Record<string, number>
  ended: number
  total: number
  /** outcome/endReason of the ended calls, counted. */
  endings: Record<string, number>
}

/** Counts the calls in the shared database straight from PostgreSQL (the API does not say which node took a call). */
export async function tallyCalls(databaseUrl: string): Promise<CallTally> {
  const client = new pg.Client({ connectionString: databaseUrl })
  await client.connect()
  try {
    const rows = (await client.query('SELECT node_id, status, outcome, end_reason FROM calls')).rows as { node_id: string | null; status: string; outcome: string | null; end_reason: string | null }[]
    const tally: CallTally = { byNode: {}, ended: 0, total: rows.length, endings: {} }
    for (const r of rows) {
      const node = r.node_id ?? '(none)'
      tally.byNode[node] = (tally.byNode[node] ?? 0) + 1
      if (r.status !== 'ended') continue
      tally.ended++
      const ending = `${r.outcome}/${r.end_reason}`
      tally.endings[ending] = (tally.endings[ending] ?? 0) + 1
    }
    return tally
  } finally {
    await client.end()
  }
}
