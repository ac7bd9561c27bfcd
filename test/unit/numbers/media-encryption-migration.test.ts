// The migration that gave numbers their mediaEncryption: numbers stored before it read back as
// 'none' (plain RTP, so their calls stay as they were), and the column refuses no value.
import { expect, test } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Migrator } from 'kysely'
import { findNumberByE164 } from '../../../src/features/numbers/index.ts'
import { migrateToLatest, openDatabase } from '../../../src/platform/db/index.ts'
import { MIGRATIONS } from '../../../src/platform/db/migrate.ts'
import { secretBoxFor } from '../../../src/platform/secrets/index.ts'

const BEFORE = '2026-11-25T2200_agent_endpointing'

test("a number stored before mediaEncryption existed reads back as 'none'; down drops the column again", async () => {
  const dir = mkdtempSync(join(tmpdir(), 'number-media-encryption-'))
  const h = openDatabase(':memory:')
  try {
    const before = Object.fromEntries(Object.entries(MIGRATIONS).filter(([n]) => n <= BEFORE))
    const migrator = new Migrator({ db: h.db, provider: { getMigrations: async () => before } })
    expect((await migrator.migrateToLatest()).error).toBeUndefined()
    h.sqlite.exec("INSERT INTO workspaces (id, name, created_at, updated_at) VALUES ('ws', 'w', 'x', 'x')")
    h.sqlite.exec(`INSERT INTO phone_numbers (id, workspace_id, e164, label, provider, status, status_reason, source, inbound_agent_id,
      outbound_agent_id, sip_termination_uri, sip_username, sip_password_enc, sip_outbound_transport, sip_register, carrier_sid,
      released_at, created_at, updated_at) VALUES ('pn_old', 'ws', '+14155550150', 'Old', 'sip', 'unconfigured', NULL, 'connected',
      NULL, NULL, 'sip:127.0.0.1:5999', NULL, NULL, 'udp', 0, NULL, NULL, '2026-11-01T00:00:00.000Z', '2026-11-01T00:00:00.000Z')`)
    expect(await migrateToLatest(h.db)).toContain('2026-11-26T1000_number_media_encryption')
    expect(h.sqlite.query("SELECT media_encryption FROM phone_numbers WHERE id = 'pn_old'").get()).toEqual({ media_encryption: 'none' })
    expect((await findNumberByE164(h.db, secretBoxFor(dir), '+14155550150'))?.mediaEncryption).toBe('none')

    const all = new Migrator({ db: h.db, provider: { getMigrations: async () => MIGRATIONS } })
    expect((await all.migrateTo(BEFORE)).error).toBeUndefined()
    const columns = h.sqlite.query('PRAGMA table_info(phone_numbers)').all() as { name: string }[]
    expect(columns.map((c) => c.name)).not.toContain('media_encryption')
  } finally {
    await h.close()
    rmSync(dir, { recursive: true, force: true })
  }
})
