// The migration that gave agents their endpointing: agents made before it read back as 'normal'
// (the engine's default, so their calls keep the pause they had), and later ones keep theirs.
import { expect, test } from 'bun:test'
import { Migrator } from 'kysely'
import { getAgent, updateAgent } from '../../../src/features/agents/index.ts'
import { migrateToLatest, openDatabase } from '../../../src/platform/db/index.ts'
import { MIGRATIONS } from '../../../src/platform/db/migrate.ts'

const BEFORE = '2026-11-25T1200_webhook_error_detail'
const rules = { urlPolicy: { allowHttp: false, allowPrivate: false } }

test("an agent stored before endpointing existed reads back as 'normal' and can then be given one", async () => {
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
    await migrateToLatest(h.db)
    expect((await getAgent(h.db, 'ws', 'ag_old')).endpointing).toBe('normal')
    expect((await updateAgent(h.db, 'ws', 'ag_old', { endpointing: 350 }, rules, 'merge')).endpointing).toBe(350)
    expect(h.sqlite.query("SELECT endpointing FROM agents WHERE id = 'ag_old'").get()).toEqual({ endpointing: '350' })
    expect((await getAgent(h.db, 'ws', 'ag_old')).endpointing).toBe(350)
  } finally {
    await h.close()
  }
})
