// Which unfinished calls a node closes: on PostgreSQL only its own (from an earlier run), calls
// without a node, and calls of nodes whose presence lease expired; never a live node's calls.
// On SQLite (one process per database) every unfinished call is closed.
import { afterAll, expect, test } from 'bun:test'
import { closeAbandonedCalls } from '../../../src/features/calls/records/index.ts'
import { type Db, type DbHandle, migrateToLatest, openDatabase, openPostgres } from '../../../src/platform/db/index.ts'
import { presenceLease } from '../../../src/platform/jobs/index.ts'
import { seedCall } from '../../helpers/call-records.ts'
import { testNeedingPackage } from '../../helpers/debian.ts'
import { postgresInstalled, sharedPostgres } from '../../helpers/postgres.ts'

const pgTest = testNeedingPackage('postgresql', postgresInstalled())
const handles: DbHandle[] = []
afterAll(async () => {
  for (const h of handles) await h.close()
})

const NOW = new Date('2026-11-24T12:00:00.000Z')

/** One unfinished call per kind of owner; returns call id by owner. */
async function seed(db: Db): Promise<Record<string, string>> {
  await db.insertInto('workspaces').values({ id: 'ws', name: 'w', created_at: 'x', updated_at: 'x' }).execute()
  await db.insertInto('job_leases').values([
    { name: presenceLease('live-node'), owner: 'live-node/1', expires_at: new Date(NOW.getTime() + 10_000).toISOString() },
    { name: presenceLease('lost-node'), owner: 'lost-node/1', expires_at: new Date(NOW.getTime() - 1).toISOString() },
  ]).execute()
  const ids: Record<string, string> = {}
  for (const owner of ['me', 'live-node', 'lost-node', 'never-seen', 'none']) {
    const id = await seedCall(db, { workspaceId: 'ws', status: 'in_progress' })
    await db.updateTable('calls').set({ node_id: owner === 'none' ? null : owner }).where('id', '=', id).execute()
    ids[owner] = id
  }
  return ids
}

const openCalls = async (db: Db) => (await db.selectFrom('calls').select(['id', 'node_id']).where('status', '!=', 'ended').execute()).map((r) => r.node_id)

pgTest("PostgreSQL: at start a node closes its own, lost nodes' and node-less calls, never a live node's", async () => {
  const h = openPostgres(await (await sharedPostgres()).createDatabase('abandoned'), 2)
  handles.push(h)
  await migrateToLatest(h.db)
  const ids = await seed(h.db)
  expect(await closeAbandonedCalls(h.db, NOW, { id: 'me', ownToo: true })).toBe(4)
  expect(await openCalls(h.db)).toEqual(['live-node'])
  const reasons = await h.db.selectFrom('calls').select(['id', 'end_reason']).where('status', '=', 'ended').execute()
  const reasonOf = (owner: string) => reasons.find((r) => r.id === ids[owner])?.end_reason
  expect([reasonOf('me'), reasonOf('none'), reasonOf('lost-node'), reasonOf('never-seen')]).toEqual(['appliance_restart', 'appliance_restart', 'node_lost', 'node_lost'])
  // each closed call got its analysis once; a second sweep (another node) changes nothing
  expect(await closeAbandonedCalls(h.db, NOW, { id: 'other', ownToo: false })).toBe(0)
  expect((await h.db.selectFrom('call_analyses').select('call_id').execute()).length).toBe(4)
})

pgTest("PostgreSQL: the periodic sweep of a running node closes lost nodes' calls only, not its own", async () => {
  const h = openPostgres(await (await sharedPostgres()).createDatabase('abandoned'), 2)
  handles.push(h)
  await migrateToLatest(h.db)
  await seed(h.db)
  expect(await closeAbandonedCalls(h.db, NOW, { id: 'me', ownToo: false })).toBe(2)
  expect((await openCalls(h.db)).sort()).toEqual(['live-node', 'me', null].sort() as never)
})

test('SQLite: every unfinished call is closed at start (one process owns the file)', async () => {
  const h = openDatabase(':memory:')
  handles.push(h)
  await migrateToLatest(h.db)
  await seed(h.db)
  expect(await closeAbandonedCalls(h.db, NOW)).toBe(5)
  expect(await openCalls(h.db)).toEqual([])
})
