import { expect, test } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Migrator } from 'kysely'
import { openDatabase } from '../../../src/platform/db/index.ts'
import { MIGRATIONS, migrateToLatest } from '../../../src/platform/db/migrate.ts'

test('calls that ended before the call-records migration get a pending analysis; live ones do not; down undoes it', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'migration-'))
  const h = openDatabase(join(dir, 'a.db'))
  try {
    const migrator = new Migrator({ db: h.db, provider: { getMigrations: async () => MIGRATIONS } })
    expect((await migrator.migrateTo('2026-11-23T1700_call_campaign_links')).error).toBeUndefined()
    h.sqlite.exec("INSERT INTO workspaces (id, name, created_at, updated_at) VALUES ('ws', 'w', 'x', 'x')")
    const call = (id: string, status: string) =>
      h.sqlite.exec(`INSERT INTO calls (id, workspace_id, type, from_number, to_number, status, created_at, ended_at) VALUES ('${id}', 'ws', 'inbound', '+1', '+2', '${status}', '2026-01-01T00:00:00.000Z', ${status === 'ended' ? "'2026-01-01T00:01:00.000Z'" : 'NULL'})`)
    call('call_old', 'ended')
    call('call_live', 'in_progress')
    await migrateToLatest(h.db)
    expect(h.sqlite.query('SELECT call_id, status, run_after FROM call_analyses').all()).toEqual([{ call_id: 'call_old', status: 'pending', run_after: '2026-01-01T00:01:00.000Z' }])
    expect((await migrator.migrateTo('2026-11-23T1700_call_campaign_links')).error).toBeUndefined()
    expect(h.sqlite.query("SELECT name FROM sqlite_master WHERE name IN ('call_analyses', 'webhook_deliveries', 'calls_by_agent_id')").all()).toEqual([])
  } finally {
    await h.close()
    rmSync(dir, { recursive: true, force: true })
  }
})
