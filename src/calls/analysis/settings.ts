import { Elysia, t } from 'elysia'
import type { Db } from '../../db/index.ts'
import { notFound } from '../../errors.ts'
import type { AuthPlugin } from '../../http/auth.ts'
import { IdParams } from '../../http/models.ts'
import { nowIso } from '../../ids.ts'
import type { Criterion } from './llm-analysis.ts'

export const AnalysisSettings = t.Object({
  model: t.String({ maxLength: 160, description: "model name for this agent's call analysis, sent to the configured LLM (LLM_PROVIDER); '' uses its model (LLM_MODEL or LLM_ANTHROPIC_MODEL)" }),
  prompt: t.String({ maxLength: 20_000, description: "system prompt of the analysis; '' uses the built-in one" }),
  evaluationCriteria: t.Array(
    t.Object({
      name: t.String({ minLength: 1, maxLength: 100 }),
      description: t.String({ maxLength: 2000 }),
      weight: t.Number({ exclusiveMinimum: 0, maximum: 100, description: 'relative weight in the overall score' }),
    }),
    { maxItems: 20, description: 'the rubric scored 0-100 by the LLM after each call (automatic evaluation); empty: none' },
  ),
})
export type AnalysisSettings = typeof AnalysisSettings.static

const DEFAULTS: AnalysisSettings = { model: '', prompt: '', evaluationCriteria: [] }

export async function analysisSettingsOf(db: Db, agentId: string | null): Promise<AnalysisSettings> {
  if (!agentId) return DEFAULTS
  const row = await db.selectFrom('agent_analysis_settings').selectAll().where('agent_id', '=', agentId).executeTakeFirst()
  if (!row) return DEFAULTS
  return { model: row.model, prompt: row.prompt, evaluationCriteria: JSON.parse(row.criteria) as Criterion[] }
}

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
