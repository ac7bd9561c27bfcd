// Caches across nodes: with an auth cache of ten minutes, a key revoked and a workspace renamed
// on node A are seen on node B at once, through PostgreSQL LISTEN/NOTIFY, not by expiry.
import { afterAll, beforeAll, expect } from 'bun:test'
import { readFileSync } from 'node:fs'
import { sql } from 'kysely'
import { join } from 'node:path'
import { openPostgres } from '../../../src/platform/db/index.ts'
import type { Api } from '../../helpers/appliance.ts'
import { type ClusterNode, nodeApi, startClusterNode } from '../../helpers/cluster-node.ts'
import { testNeedingPackage } from '../../helpers/debian.ts'
import { postgresInstalled, sharedPostgres } from '../../helpers/postgres.ts'
import { untilAsync } from '../../helpers/until.ts'

const pgTest = testNeedingPackage('postgresql', postgresInstalled())
const nodes: ClusterNode[] = []
let apiA: Api
let apiB: Api
let adminKey = ''
let workspaceId = ''
let databaseUrl = ''

beforeAll(async () => {
  if (!postgresInstalled()) return
  databaseUrl = await (await sharedPostgres()).createDatabase('caches')
  const env = { AUTH_CACHE_MS: '600000', RATE_LIMIT_PER_SEC: '0' }
  nodes.push(await startClusterNode({ databaseUrl, nodeId: 'node-a', env }))
  nodes.push(await startClusterNode({ databaseUrl, nodeId: 'node-b', env }))
  adminKey = readFileSync(join(nodes[0]!.dataDir, 'admin-api-key'), 'utf8').trim()
  apiA = nodeApi(nodes[0]!, adminKey)
  apiB = nodeApi(nodes[1]!, adminKey)
  workspaceId = (await apiA('GET', '/api/workspaces')).body.workspaces[0].id
}, 60_000)
afterAll(async () => {
  for (const n of nodes) await n.stop()
})

pgTest('a key revoked on node A stops working on node B at once, although B had it cached for ten minutes', async () => {
  const made = await apiA('POST', `/api/workspaces/${workspaceId}/api-keys`, { body: { name: 'short-lived' } })
  expect(made.status).toBe(200)
  const key = made.body.apiKey.key as string
  // B resolves the key and caches it
  expect((await apiB('GET', '/api/agents', { key })).status).toBe(200)
  expect((await apiB('GET', '/api/agents', { key })).status).toBe(200)
  expect((await apiA('DELETE', `/api/workspaces/${workspaceId}/api-keys/${made.body.apiKey.id}`)).status).toBe(200)
  await untilAsync(async () => (await apiB('GET', '/api/agents', { key })).status === 401, 2000, 'B refusing the revoked key', 20)
})

pgTest("a workspace renamed on node A reads with its new name on node B, whose row was cached", async () => {
  expect((await apiB('GET', `/api/workspaces/${workspaceId}`)).body.workspace.name).toBe('Default')
  expect((await apiA('PATCH', `/api/workspaces/${workspaceId}`, { body: { name: 'Renamed on A' } })).status).toBe(200)
  // within a second: the cached row's own expiry (5 s) cannot be what refreshed it
  await untilAsync(async () => (await apiB('GET', `/api/workspaces/${workspaceId}`)).body.workspace.name === 'Renamed on A', 1000, "B's fresh row", 20)
})

pgTest("when a node's LISTEN connection is cut it reconnects, and changes made afterwards on another node still reach it", async () => {
  const made = await apiA('POST', `/api/workspaces/${workspaceId}/api-keys`, { body: { name: 'outlives a reconnect' } })
  const key = made.body.apiKey.key as string
  expect((await apiB('GET', '/api/agents', { key })).status).toBe(200)
  // the server ends every LISTEN connection (as a restart or a network cut would)
  const side = openPostgres(databaseUrl, 1)
  try {
    const cut = await sql<{ n: number }>`SELECT count(pg_terminate_backend(pid)) AS n FROM pg_stat_activity WHERE datname = current_database() AND query LIKE 'LISTEN%'`.execute(side.db)
    expect(cut.rows[0]!.n).toBe(2)
    await untilAsync(async () => {
      const r = await sql<{ n: number }>`SELECT count(*) AS n FROM pg_stat_activity WHERE datname = current_database() AND query LIKE 'LISTEN%'`.execute(side.db)
      return r.rows[0]!.n === 2
    }, 5000, 'both nodes listening again', 50)
  } finally {
    await side.close()
  }
  expect((await apiB('GET', '/api/agents', { key })).status).toBe(200)
  expect((await apiA('DELETE', `/api/workspaces/${workspaceId}/api-keys/${made.body.apiKey.id}`)).status).toBe(200)
  await untilAsync(async () => (await apiB('GET', '/api/agents', { key })).status === 401, 2000, 'B refusing the revoked key', 20)
})
