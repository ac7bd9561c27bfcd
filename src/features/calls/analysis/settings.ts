import { t } from 'elysia'
import type { Db } from '../../../platform/db/index.ts'
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
