// Two appliance nodes on one PostgreSQL database. Node A claims a post-call webhook and is
// killed with SIGKILL while sending it (its receiver never answers A); once A's lease expires
// node B sends it, with the same webhook-id, and it is delivered exactly once.
import { expect } from 'bun:test'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { Webhook } from 'standardwebhooks'
import { ledger } from '../../../src/features/calls/records/index.ts'
import { openPostgres } from '../../../src/platform/db/index.ts'
import { seedCall } from '../../helpers/call-records.ts'
import { clusterNodes, nodeApi, startClusterNode } from '../../helpers/cluster-node.ts'
import { testNeedingPackage } from '../../helpers/debian.ts'
import { postgresInstalled, sharedPostgres } from '../../helpers/postgres.ts'
import { until, untilAsync } from '../../helpers/until.ts'

const pgTest = testNeedingPackage('postgresql', postgresInstalled())
const { nodes, secretKeyFile } = clusterNodes()

/** Answers 200 to every request but the first, which it never answers (its sender dies). */
function hangingOnceReceiver() {
  const received: { headers: Record<string, string>; body: string }[] = []
  let answered200 = 0
  const server = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    idleTimeout: 0,
    async fetch(req) {
      received.push({ headers: Object.fromEntries(req.headers.entries()), body: await req.text() })
      if (received.length === 1) return new Promise<Response>(() => {})
      answered200++
      return new Response('ok')
    },
  })
  return { url: `http://127.0.0.1:${server.port}/hook`, received, answered: () => answered200, stop: () => server.stop(true) }
}

pgTest('a webhook claimed by a node killed with SIGKILL mid-send is delivered once, by the other node, with the same webhook-id', async () => {
  const databaseUrl = await (await sharedPostgres()).createDatabase('webhook_takeover')
  const env = { WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_LEASE_MS: '3000', BACKGROUND_POLL_MS: '50', WEBHOOK_RETRY_SCHEDULE: '500ms,500ms', NODE_LEASE_MS: '3000' }
  const rx = hangingOnceReceiver()
  try {
    const a = await startClusterNode({ databaseUrl, nodeId: 'node-a', secretKeyFile, env })
    nodes.push(a)
    const adminKey = readFileSync(join(a.dataDir, 'admin-api-key'), 'utf8').trim()
    const apiA = nodeApi(a, adminKey)
    const workspaceId = (await apiA('GET', '/api/workspaces')).body.workspaces[0].id
    const agentId = (await apiA('POST', '/api/agents', { body: { name: 'Hooked', webhookUrl: rx.url } })).body.agent.id
    const secret = (await apiA('GET', `/api/workspaces/${workspaceId}/webhook-secret`)).body.secret

    // a call ends (the real finalisation hook on the shared database): A analyses it, claims the webhook and sends it
    const side = openPostgres(databaseUrl, 1)
    let callId: string
    try {
      callId = await seedCall(side.db, { workspaceId, agentId, status: 'in_progress' })
      await ledger.finaliseCall(side.db, callId, { status: 'ended', outcome: 'completed', ended_at: new Date().toISOString(), duration_sec: 3 })
    } finally {
      await side.close()
    }
    await until(() => rx.received.length === 1, 15_000, "node A's send")

    const b = await startClusterNode({ databaseUrl, nodeId: 'node-b', secretKeyFile, env })
    nodes.push(b)
    await a.kill()

    await until(() => rx.answered() === 1, 20_000, "node B's send after A's lease expired")
    const first = rx.received[0]!
    const second = rx.received[1]!
    expect(second.headers['webhook-id']).toBe(first.headers['webhook-id'])
    const event = new Webhook(secret).verify(second.body, second.headers) as any
    expect(event.data.call.id).toBe(callId)

    const apiB = nodeApi(b, adminKey)
    let delivery: any
    await untilAsync(async () => {
      delivery = (await apiB('GET', `/api/webhook-deliveries?callId=${callId}`)).body.deliveries?.[0]
      return delivery?.status === 'delivered'
    }, 10_000, 'the delivery marked delivered', 100)
    // A's attempt died with A: the one recorded attempt is B's, answered 200
    expect(delivery.attempts.map((x: any) => x.statusCode)).toEqual([200])
    expect(rx.received).toHaveLength(2)
    expect(await b.stop()).toBe(0)
  } finally {
    await rx.stop()
  }
}, 90_000)
