// The migration of a supervisor's actions (issue 47), on SQLite and PostgreSQL: a member who
// joined before it holds no grants, an action's audit row goes with its call, and undone, the
// table and the column go and come back.
import { afterAll, expect, test } from 'bun:test'
import { Migrator } from 'kysely'
import { type DbHandle, migrateToLatest, openDatabase, openPostgres } from '../../../src/platform/db/index.ts'
import { MIGRATIONS } from '../../../src/platform/db/migrate.ts'
import { listMembers } from '../../../src/features/workspaces/members.service.ts'
import { seedCall } from '../../helpers/call-records.ts'
import { testNeedingPackage } from '../../helpers/debian.ts'
import { postgresInstalled, sharedPostgres } from '../../helpers/postgres.ts'

const BEFORE = '2026-12-08T1700_call_tool_calls'
const THIS = '2026-12-08T1800_call_actions'
const pgTest = testNeedingPackage('postgresql', postgresInstalled())
const at = '2026-12-08T18:00:00.000Z'

const opened: DbHandle[] = []
afterAll(async () => {
  for (const h of opened) await h.close()
})

async function auditsAndGrants(h: DbHandle): Promise<void> {
  const before = Object.fromEntries(Object.entries(MIGRATIONS).filter(([n]) => n <= BEFORE))
  expect((await new Migrator({ db: h.db, provider: { getMigrations: async () => before } }).migrateToLatest()).error).toBeUndefined()
  const db = h.db as any
  await db.insertInto('workspaces').values({ id: 'ws', name: 'w', created_at: at, updated_at: at }).execute()
  await db.insertInto('users').values({ id: 'usr', email: 'a@example.com', created_at: at }).execute()
  await db.insertInto('memberships').values({ workspace_id: 'ws', user_id: 'usr', role: 'member', joined_at: at }).execute()
  expect(await migrateToLatest(h.db)).toContain(THIS)
  expect((await listMembers(h.db, 'ws', {})).members[0]).toMatchObject({ userId: 'usr', grants: [] })

  const callId = await seedCall(h.db, { workspaceId: 'ws', status: 'in_progress' })
  const action = { id: 'act', call_id: callId, workspace_id: 'ws', type: 'say', text: 'hello', target: null, actor_key_id: 'key', actor_user_id: 'usr', result: 'done' as const, error: null, created_at: at }
  await h.db.insertInto('call_actions').values(action).execute()
  expect(await h.db.selectFrom('call_actions').selectAll().execute()).toEqual([action])
  await h.db.deleteFrom('calls').where('id', '=', callId).execute()
  expect(await h.db.selectFrom('call_actions').selectAll().execute()).toEqual([])

  const migrator = new Migrator({ db: h.db, provider: { getMigrations: async () => MIGRATIONS } })
  expect((await migrator.migrateTo(BEFORE)).error).toBeUndefined()
  expect((await migrateToLatest(h.db))[0]).toBe(THIS)
  expect((await listMembers(h.db, 'ws', {})).members[0]).toMatchObject({ grants: [] })
}

test('SQLite: a member from before holds no grants; an action is audited and deleted with its call; the migration undoes and redoes', async () => {
  const h = openDatabase(':memory:')
  opened.push(h)
  await auditsAndGrants(h)
})

pgTest('PostgreSQL: a member from before holds no grants; an action is audited and deleted with its call; the migration undoes and redoes', async () => {
  const h = openPostgres(await (await sharedPostgres()).createDatabase('call_actions'), 2)
  opened.push(h)
  await auditsAndGrants(h)
})
