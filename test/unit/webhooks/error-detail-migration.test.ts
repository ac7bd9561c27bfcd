// The migration that split webhook errors into a coarse code (members) and a detail (admins):
// deliveries recorded before it keep their text as the detail and get the code it names.
import { expect, test } from 'bun:test'
import { Migrator } from 'kysely'
import { migrateToLatest, openDatabase } from '../../../src/platform/db/index.ts'
import { MIGRATIONS } from '../../../src/platform/db/migrate.ts'

const BEFORE = '2026-11-24T0100_call_node'

test('errors recorded before the split become codes, their text kept as the detail', async () => {
  const h = openDatabase(':memory:')
  try {
    const before = Object.fromEntries(Object.entries(MIGRATIONS).filter(([n]) => n <= BEFORE))
    const { error } = await new Migrator({ db: h.db, provider: { getMigrations: async () => before } }).migrateToLatest()
    expect(error).toBeUndefined()
    h.sqlite.exec("INSERT INTO workspaces (id, name, created_at, updated_at) VALUES ('ws', 'w', 'x', 'x')")
    const old: [string, string | null][] = [
      ['d1', 'connect ECONNREFUSED 192.0.2.2:9'],
      ['d2', 'self signed certificate'],
      ['d3', 'HTTP 500'],
      ['d4', 'no answer within 10000 ms'],
      ['d5', 'refused by the address rules: refused: a loopback address'],
      ['d6', 'could not prepare the event: boom'],
      ['d7', "receiver answered 410 Gone: the agent's webhookUrl was turned off"],
      ['d8', 'error:100000f7:SSL routines:OPENSSL_internal:WRONG_VERSION_NUMBER'],
      ['d9', null],
    ]
    for (const [id, err] of old) {
      h.sqlite
        .query("INSERT INTO webhook_deliveries (id, workspace_id, event_type, url, status, next_attempt_at, last_error, created_at) VALUES (?, 'ws', 't', 'https://x.example/', 'pending', 'x', ?, 'x')")
        .run(id, err)
      h.sqlite.query("INSERT INTO webhook_attempts (delivery_id, attempted_at, latency_ms, error) VALUES (?, 'x', 1, ?)").run(id, err)
    }
    await migrateToLatest(h.db)
    const rows = h.sqlite.query('SELECT d.id, d.last_error, d.last_error_detail, a.error, a.error_detail FROM webhook_deliveries d JOIN webhook_attempts a ON a.delivery_id = d.id ORDER BY d.id').all() as any[]
    const codes = ['connection_failed', 'tls_failed', 'http_status', 'timeout', 'address_refused', 'internal_error', 'http_status', 'tls_failed', null]
    expect(rows.map((r) => r.last_error)).toEqual(codes)
    expect(rows.map((r) => r.error)).toEqual(codes)
    expect(rows.map((r) => r.last_error_detail)).toEqual(old.map(([, e]) => e))
    expect(rows.map((r) => r.error_detail)).toEqual(old.map(([, e]) => e))
  } finally {
    await h.close()
  }
})
