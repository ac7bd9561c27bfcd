import type { Db } from '../../../platform/db/index.ts'
import type { AnalysisRow, EvaluationRow } from './records.table.ts'

export interface PartsByCall {
  analyses: Map<string, AnalysisRow>
  evaluations: Map<string, EvaluationRow[]>
  labels: Map<string, string[]>
}

/** The analysis, evaluations and labels of a batch of calls, three queries for the whole batch. */
export async function partsOf(db: Db, callIds: string[]): Promise<PartsByCall> {
  const out: PartsByCall = { analyses: new Map(), evaluations: new Map(), labels: new Map() }
  if (!callIds.length) return out
  const [analyses, evaluations, labels] = await Promise.all([
    db.selectFrom('call_analyses').selectAll().where('call_id', 'in', callIds).execute(),
    db.selectFrom('call_evaluations').selectAll().where('call_id', 'in', callIds).orderBy('created_at').orderBy('id').execute(),
    db.selectFrom('call_labels').select(['call_id', 'label']).where('call_id', 'in', callIds).orderBy('label').execute(),
  ])
  for (const a of analyses) out.analyses.set(a.call_id, a)
  for (const e of evaluations) out.evaluations.set(e.call_id, [...(out.evaluations.get(e.call_id) ?? []), e])
  for (const l of labels) out.labels.set(l.call_id, [...(out.labels.get(l.call_id) ?? []), l.label])
  return out
}

export const labelsOf = async (db: Db, callId: string) =>
  (await db.selectFrom('call_labels').select('label').where('call_id', '=', callId).orderBy('label').execute()).map((r) => r.label)

export async function replaceLabels(db: Db, workspaceId: string, callId: string, labels: string[], now: string): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await trx.deleteFrom('call_labels').where('call_id', '=', callId).execute()
    if (labels.length) {
      await trx.insertInto('call_labels').values(labels.map((label) => ({ call_id: callId, workspace_id: workspaceId, label, created_at: now }))).execute()
    }
  })
}

export const addLabel = (db: Db, workspaceId: string, callId: string, label: string, now: string) =>
  db.insertInto('call_labels').values({ call_id: callId, workspace_id: workspaceId, label, created_at: now }).onConflict((oc) => oc.doNothing()).execute()

export const removeLabel = (db: Db, callId: string, label: string) =>
  db.deleteFrom('call_labels').where('call_id', '=', callId).where('label', '=', label).executeTakeFirst()

export const insertEvaluation = (db: Db, row: EvaluationRow) => db.insertInto('call_evaluations').values(row).execute()

export const evaluationsOf = (db: Db, callId: string) =>
  db.selectFrom('call_evaluations').selectAll().where('call_id', '=', callId).orderBy('created_at').orderBy('id').execute()

export const deleteEvaluation = (db: Db, callId: string, id: string) =>
  db.deleteFrom('call_evaluations').where('call_id', '=', callId).where('id', '=', id).executeTakeFirst()
