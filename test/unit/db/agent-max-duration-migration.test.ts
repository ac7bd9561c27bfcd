// The migrations of issue 44: agents made before maxDurationSec read back null (the appliance's
// CALL_MAX_DURATION_MS, as their calls had) and can be given one; calls made before the media
// column read back with media null.
import { expect, test } from 'bun:test'
import { Migrator } from 'kysely'
import { getAgent, updateAgent } from '../../../src/features/agents/index.ts'
import { migrateToLatest, openDatabase } from '../../../src/platform/db/index.ts'
import { MIGRATIONS } from '../../../src/platform/db/migrate.ts'

const BEFORE = '2026-12-07T1900_contact_timezone'
const rules = { urlPolicy: { allowHttp: false, allowPrivate: false } }

test('an agent stored before maxDurationSec existed reads back null and can then be given one; an older call has no media', async () => {
  const h = openDatabase(':memory:')
  try {
    const before = Object.fromEntries(Object.entries(MIGRATIONS).filter(([n]) => n <= BEFORE))
    const { error } = await new Migrator({ db: h.db, provider: { getMigrations: async () => before } }).migrateToLatest()
    expect(error).toBeUndefined()
    h.sqlite.exec("INSERT INTO workspaces (id, name, created_at, updated_at) VALUES ('ws', 'w', 'x', 'x')")
    h.sqlite.exec(`INSERT INTO agents (id, workspace_id, name, prompt_draft, prompt_published, welcome, voice, llm_model, language, enabled_tools, tool_configs,
      webhook_url, agent_type, role, version, published_at, created_at, updated_at) VALUES ('ag_old', 'ws', 'Old', '', '',
      '{"mode":"user_speaks_first","message":"","interruptible":true,"delayMs":0}', '{"provider":"flite","voiceId":"slt","speed":1}',
      'gpt-4o-mini', 'en-US', '[]', '{}', '', 'inbound', 'reception', 1, NULL, '2026-11-01T00:00:00.000Z', '2026-11-01T00:00:00.000Z')`)
    h.sqlite.exec(`INSERT INTO calls (id, workspace_id, type, from_number, to_number, status, created_at) VALUES ('call_old', 'ws', 'inbound', '+14155550100', '+14155550101', 'ended', 'x')`)
    await migrateToLatest(h.db)
    expect((await getAgent(h.db, 'ws', 'ag_old')).maxDurationSec).toBeNull()
    expect((await updateAgent(h.db, 'ws', 'ag_old', { maxDurationSec: 600 }, rules, 'merge')).maxDurationSec).toBe(600)
    expect(h.sqlite.query("SELECT max_duration_sec FROM agents WHERE id = 'ag_old'").get()).toEqual({ max_duration_sec: '600' })
    expect((await updateAgent(h.db, 'ws', 'ag_old', { maxDurationSec: null }, rules, 'merge')).maxDurationSec).toBeNull()
    expect(h.sqlite.query("SELECT media FROM calls WHERE id = 'call_old'").get()).toEqual({ media: null })
  } finally {
    await h.close()
  }
})
