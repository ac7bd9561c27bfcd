// The migration that gave campaign contacts a time zone of their own, on SQLite and PostgreSQL: a
// contact stored before it has none and is shown (and called) in its number's zone; undone, the
// column goes and comes back.
import { afterAll, expect, test } from 'bun:test'
import { Migrator } from 'kysely'
import { listContacts } from '../../../src/features/campaigns/campaigns.service.ts'
import { type DbHandle, migrateToLatest, openDatabase, openPostgres } from '../../../src/platform/db/index.ts'
import { MIGRATIONS } from '../../../src/platform/db/migrate.ts'
import { testNeedingPackage } from '../../helpers/debian.ts'
import { postgresInstalled, sharedPostgres } from '../../helpers/postgres.ts'

const BEFORE = '2026-11-26T1600_call_test_draft'
const THIS = '2026-12-07T1900_contact_timezone'
const pgTest = testNeedingPackage('postgresql', postgresInstalled())
const at = '2026-12-01T22:20:00.000Z'

const opened: DbHandle[] = []
afterAll(async () => {
  for (const h of opened) await h.close()
})

async function contactBeforeTheMigration(h: DbHandle): Promise<void> {
  const before = Object.fromEntries(Object.entries(MIGRATIONS).filter(([n]) => n <= BEFORE))
  const { error } = await new Migrator({ db: h.db, provider: { getMigrations: async () => before } }).migrateToLatest()
  expect(error).toBeUndefined()
  const db = h.db as any
  await db.insertInto('workspaces').values({ id: 'ws', name: 'w', created_at: at, updated_at: at }).execute()
  const settings = { maxConcurrent: 1, retryAttempts: 0, retryDelayMs: 0, retryVoicemail: false, ringTimeoutMs: 30_000, callingWindow: { start: '08:00', end: '21:00', days: ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] }, answeringMachineDetection: { enabled: false, action: 'hangup', voicemailMessage: '' } }
  await db.insertInto('outbound_jobs').values({ id: 'job_old', workspace_id: 'ws', agent_id: 'ag', phone_number_id: 'pn', name: 'Old', status: 'in_progress', settings: JSON.stringify(settings), start_at_ms: Date.parse(at), total_contacts: 1, pending: 1, created_at: at, started_at: at }).execute()
  await db.insertInto('outbound_contacts').values({ id: 'job_old_0', job_id: 'job_old', position: 0, to_number: '+14155550100', status: 'pending', next_attempt_ms: Date.parse(at), updated_at: at }).execute()
}

async function readsBackInItsNumbersZone(h: DbHandle): Promise<void> {
  await contactBeforeTheMigration(h)
  expect(await migrateToLatest(h.db)).toContain(THIS)
  const row = await h.db.selectFrom('outbound_contacts').select(['to_number', 'timezone']).where('id', '=', 'job_old_0').executeTakeFirstOrThrow()
  expect(row).toEqual({ to_number: '+14155550100', timezone: null })
  const { contacts } = await listContacts(h.db, 'ws', 'job_old', {}, Date.parse(at))
  expect(contacts[0]).toMatchObject({ timezone: 'America/Los_Angeles', timezoneSource: 'number', nextAttemptAt: at, nextAttemptLocal: '2026-12-01T14:20:00.000-08:00' })
  await h.db.updateTable('outbound_contacts').set({ timezone: 'America/Chicago' }).where('id', '=', 'job_old_0').execute()
  expect((await listContacts(h.db, 'ws', 'job_old', {}, Date.parse(at))).contacts[0]).toMatchObject({ timezone: 'America/Chicago', timezoneSource: 'contact' })
  // undone and done again: the column goes and comes back empty
  const migrator = new Migrator({ db: h.db, provider: { getMigrations: async () => MIGRATIONS } })
  expect((await migrator.migrateTo(BEFORE)).error).toBeUndefined()
  expect((await migrateToLatest(h.db))[0]).toBe(THIS)
  expect(await h.db.selectFrom('outbound_contacts').select('timezone').where('id', '=', 'job_old_0').executeTakeFirstOrThrow()).toEqual({ timezone: null })
}

test("SQLite: a contact stored before contacts had zones has none of its own and is shown in its number's zone", async () => {
  const h = openDatabase(':memory:')
  opened.push(h)
  await readsBackInItsNumbersZone(h)
})

pgTest("PostgreSQL: a contact stored before contacts had zones has none of its own and is shown in its number's zone", async () => {
  const h = openPostgres(await (await sharedPostgres()).createDatabase('contact_tz'), 2)
  opened.push(h)
  await readsBackInItsNumbersZone(h)
})
