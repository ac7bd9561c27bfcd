// GET/PUT /api/agents/{id}/analysis: the routes of settings.ts.
import { Elysia, t } from 'elysia'
import type { Db } from '../../../platform/db/index.ts'
import { notFound } from '../../../platform/errors.ts'
import type { AuthPlugin } from '../../../http/auth.ts'
import { IdParams } from '../../../platform/schema/index.ts'
import { nowIso } from '../../../platform/ids.ts'
import { AnalysisSettings, analysisSettingsOf } from './settings.ts'

async function agentInWorkspace(db: Db, workspaceId: string, agentId: string) {
  const agent = await db.selectFrom('agents').select('id').where('workspace_id', '=', workspaceId).where('id', '=', agentId).executeTakeFirst()
  if (!agent) throw notFound('agent')
}

export function analysisSettingsController(db: Db, auth: AuthPlugin) {
  const detail = 'How the calls of this agent are analysed after they end: the LLM model and prompt (with an LLM configured) and the evaluation criteria scored as an automatic evaluation.'
  return new Elysia({ prefix: '/api/agents', tags: ['Agents'] })
    .use(auth)
    .get(
      '/:id/analysis-settings',
      async ({ params, principal }) => {
        await agentInWorkspace(db, principal.workspaceId, params.id)
        return { analysisSettings: await analysisSettingsOf(db, params.id) }
      },
      { permission: 'agents:read', params: IdParams, response: t.Object({ analysisSettings: AnalysisSettings }), detail: { summary: "Get the agent's call-analysis settings", description: detail } },
    )
    .put(
      '/:id/analysis-settings',
      async ({ params, body, principal }) => {
        await agentInWorkspace(db, principal.workspaceId, params.id)
        const values = { model: body.model, prompt: body.prompt, criteria: JSON.stringify(body.evaluationCriteria), updated_at: nowIso() }
        await db
          .insertInto('agent_analysis_settings')
          .values({ agent_id: params.id, workspace_id: principal.workspaceId, ...values })
          .onConflict((oc) => oc.column('agent_id').doUpdateSet(values))
          .execute()
        return { analysisSettings: await analysisSettingsOf(db, params.id) }
      },
      { permission: 'agents:write', params: IdParams, body: AnalysisSettings, response: t.Object({ analysisSettings: AnalysisSettings }), detail: { summary: "Replace the agent's call-analysis settings", description: detail } },
    )
}
