import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { authenticate } from '../../../src/api-keys/index.ts'
import { type Config, loadConfig } from '../../../src/config.ts'
import { migrateToLatest, openDatabase } from '../../../src/db/index.ts'
import { buildApp, FEATURES } from '../../../src/http/app.ts'
import { createLogger } from '../../../src/log.ts'
import { workflowsFeature } from '../../../src/workflows/index.ts'
import { bootstrapIfEmpty } from '../../../src/workspaces/index.ts'
import { type Api, apiClient } from '../../helpers/appliance.ts'

export interface WorkflowApp {
  url: string
  api: Api
  workspaceId: string
  adminKey: string
  /** Registers an agent in the test's agents table, which the injected agentExists and enabledTools read. */
  addAgent(workspaceId: string, agentId: string, enabledTools?: string[]): void
  /** Rows of the real workflows table, read straight from the SQLite file. */
  workflowRows(): { agent_id: string; workspace_id: string; graph: string }[]
  stop(): Promise<void>
}

/**
 * The real HTTP app (auth, error body, body limits, the workspaces and API-key modules) on a
 * real SQLite file and a free port, with the workflows module mounted. The agents table is not
 * part of this branch, so agent existence and enabled tools come from a small `test_agents`
 * table in the same database, read by the `agentExists` and `enabledTools` functions the
 * workflows module is given; on merge the agents module supplies those functions instead.
 */
export async function startWorkflowApp(overrides: Partial<Config> = {}): Promise<WorkflowApp> {
  const dir = mkdtempSync(join(tmpdir(), 'workflows-test-'))
  const config = loadConfig({}, { HTTP_HOST: '127.0.0.1', HTTP_PORT: 0, DATA_DIR: dir, LOG_LEVEL: 'silent', RATE_LIMIT_PER_SEC: 0, ...overrides })
  const log = createLogger(config.LOG_LEVEL)
  const database = openDatabase(join(dir, 'appliance.db'))
  await migrateToLatest(database.db)
  const boot = await bootstrapIfEmpty(database.db)
  if (!boot) throw new Error('fresh database was not bootstrapped')
  database.sqlite.exec("CREATE TABLE test_agents (id TEXT PRIMARY KEY, workspace_id TEXT NOT NULL, enabled_tools TEXT NOT NULL DEFAULT '[]')")
  const find = database.sqlite.query<{ enabled_tools: string }, [string, string]>('SELECT enabled_tools FROM test_agents WHERE workspace_id = ? AND id = ?')
  const agentExists = async (workspaceId: string, agentId: string) => find.get(workspaceId, agentId) !== null
  const enabledTools = async (workspaceId: string, agentId: string) => JSON.parse(find.get(workspaceId, agentId)?.enabled_tools ?? '[]') as string[]
  const db = database.db
  const app = buildApp({ db, config, log, authenticate: (token, now) => authenticate(db, token, now) }, [
    ...FEATURES,
    (deps, auth) => workflowsFeature(deps, auth, { agentExists, enabledTools }),
  ])
  app.listen({ hostname: '127.0.0.1', port: 0 })
  const url = `http://127.0.0.1:${app.server?.port}`
  return {
    url,
    api: apiClient(url, boot.key),
    workspaceId: boot.workspace.id,
    adminKey: boot.key,
    addAgent: (workspaceId, agentId, tools = []) =>
      database.sqlite.query('INSERT INTO test_agents (id, workspace_id, enabled_tools) VALUES (?, ?, ?)').run(agentId, workspaceId, JSON.stringify(tools)),
    workflowRows: () => database.sqlite.query<{ agent_id: string; workspace_id: string; graph: string }, []>('SELECT agent_id, workspace_id, graph FROM workflows ORDER BY agent_id').all(),
    async stop() {
      await app.stop()
      await database.close()
      rmSync(dir, { recursive: true, force: true })
    },
  }
}
