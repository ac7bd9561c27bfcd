import { DEFAULT_WELCOME } from '../../../src/features/agents/agents.service.ts'
import type { Config } from '../../../src/platform/config/index.ts'
import { type Api, startTestAppliance } from '../../helpers/appliance.ts'

export interface WorkflowApp {
  url: string
  api: Api
  workspaceId: string
  adminKey: string
  /** Inserts an agent row with this id into the real agents table (a fixture with a fixed id). */
  addAgent(workspaceId: string, agentId: string, enabledTools?: string[]): void
  /** Rows of the real workflows table, read straight from the SQLite file. */
  workflowRows(): { agent_id: string; workspace_id: string; graph: string }[]
  stop(): Promise<void>
}

/** The real appliance on a real SQLite file and a free port; workflows are mounted with the rest. */
export async function startWorkflowApp(overrides: Partial<Config> = {}): Promise<WorkflowApp> {
  const t = await startTestAppliance({ RATE_LIMIT_PER_SEC: 0, ...overrides })
  const sqlite = t.appliance.database.sqlite
  const insertAgent = sqlite.query(
    `INSERT INTO agents (id, workspace_id, name, prompt_draft, prompt_published, welcome, voice, llm_model, language,
       enabled_tools, tool_configs, webhook_url, agent_type, role, version, published_at, created_at, updated_at)
     VALUES (?1, ?2, 'Workflow agent', '', '', ?5, '{}', '', 'en', ?4, '{}', '', 'inbound', 'reception', 1, NULL, ?3, ?3)`,
  )
  return {
    url: t.url,
    api: t.api,
    workspaceId: t.workspaceId,
    adminKey: t.adminKey,
    addAgent: (workspaceId, agentId, enabledTools = []) => {
      insertAgent.run(agentId, workspaceId, new Date().toISOString(), JSON.stringify(enabledTools), JSON.stringify(DEFAULT_WELCOME))
    },
    workflowRows: () =>
      sqlite
        .query<{ agent_id: string; workspace_id: string; graph: string }, []>('SELECT agent_id, workspace_id, graph FROM workflows ORDER BY agent_id')
        .all(),
    stop: () => t.stop(),
  }
}
