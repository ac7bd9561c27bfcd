// Upgrading a database where two workspaces hold the same live e164: the oldest keeps it, the
// others are released with a reason, nothing is deleted, and the unique index then holds.
import { afterAll, expect, test } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Migrator } from 'kysely'
import { type DbHandle, migrateToLatest, openDatabase } from '../../../src/platform/db/index.ts'
import { MIGRATIONS } from '../../../src/platform/db/migrate.ts'

const dir = mkdtempSync(join(tmpdir(), 'number-owner-'))
let handle: DbHandle | undefined
afterAll(async () => {
  await handle?.close()
  rmSync(dir, { recursive: true, force: true })
})

const row = (id: string, workspace: string, e164: string, createdAt: string, extra: Record<string, unknown> = {}) => ({
  id, workspace_id: workspace, e164, label: id, provider: 'sip', status: 'active', status_reason: null, source: 'connected',
  inbound_agent_id: null, outbound_agent_id: null, sip_termination_uri: 'sip:127.0.0.1:5999', sip_username: null, sip_password_enc: null,
  sip_outbound_transport: 'udp', sip_register: 0, carrier_sid: null, released_at: null, created_at: createdAt, updated_at: createdAt, ...extra,
})

test('the oldest live row of an e164 keeps it; later ones are released with the reason and their data kept', async () => {
  handle = openDatabase(join(dir, 'app.db'))
  const db = handle.db as any
  const before = Object.fromEntries(Object.entries(MIGRATIONS).filter(([name]) => name < '2026-11-23T1820'))
  const { error } = await new Migrator({ db, provider: { getMigrations: async () => before } }).migrateToLatest()
  expect(error).toBeUndefined()
  for (const ws of ['ws_a', 'ws_b', 'ws_c']) await db.insertInto('workspaces').values({ id: ws, name: ws, created_at: 'x', updated_at: 'x' }).execute()
  await db.insertInto('phone_numbers').values([
    row('pn_b', 'ws_b', '+14155550150', '2026-11-01T10:00:00.000Z', { sip_username: 'b', sip_password_enc: 'sealed' }),
    row('pn_a', 'ws_a', '+14155550150', '2026-11-01T09:00:00.000Z'),
    row('pn_c2', 'ws_c', '+14155550150', '2026-11-01T09:00:00.000Z'), // same instant as pn_a: the id decides
    row('pn_x', 'ws_c', '+14155550151', '2026-11-02T09:00:00.000Z'),
    row('pn_old', 'ws_b', '+14155550151', '2026-10-01T09:00:00.000Z', { status: 'released', released_at: '2026-10-02T00:00:00.000Z' }),
  ]).execute()

  await migrateToLatest(handle.db)

  const rows = await db.selectFrom('phone_numbers').selectAll().orderBy('id').execute()
  expect(rows.map((r: any) => r.id)).toEqual(['pn_a', 'pn_b', 'pn_c2', 'pn_old', 'pn_x'])
  const by = Object.fromEntries(rows.map((r: any) => [r.id, r]))
  expect(by.pn_a).toMatchObject({ status: 'active', released_at: null })
  expect(by.pn_x).toMatchObject({ status: 'active', released_at: null })
  for (const id of ['pn_b', 'pn_c2']) {
    expect(by[id]).toMatchObject({
      status: 'released',
      released_at: expect.any(String),
      sip_password_enc: null,
      inbound_agent_id: null,
      sip_termination_uri: 'sip:127.0.0.1:5999',
      status_reason: 'number_in_use: released on upgrade; +14155550150 stays with workspace ws_a',
    })
  }
  expect(by.pn_old.released_at).toBe('2026-10-02T00:00:00.000Z')
  await expect(db.insertInto('phone_numbers').values(row('pn_d', 'ws_c', '+14155550150', '2026-11-03T00:00:00.000Z')).execute()).rejects.toThrow(/UNIQUE/)
})
