import { type Db, retryOnDeadlock } from '../../../platform/db/index.ts'
import { conflict, notFound, validation } from '../../../platform/errors.ts'
import { newId, nowIso } from '../../../platform/ids.ts'
import { findCall } from '../calls.repository.ts'
import type { CallRow } from '../calls.table.ts'
import { exportDocument, toEvaluation } from './export-document.ts'
import type { Evaluation, EvaluationBody, ExportDocument } from './records.model.ts'
import * as ledger from './ledger.ts'
import * as repo from './records.repository.ts'
import { signedRecordingUrl } from './recording-url.ts'
import type { RecordingStorage } from '../../recordings/index.ts'

export const MAX_LABELS = 50

export interface RecordsDeps {
  db: Db
  /** HMAC key of recording links (recordingUrlKey). */
  linkKey: Buffer
  /** Where the recording links point: PUBLIC_HTTP_URL, else the appliance's own URL. */
  baseUrl: string
  recordingUrlTtlSec: number
  /** Where recordings are read and deleted (this node's disk, object storage). */
  storage: RecordingStorage
}

async function callRow(db: Db, workspaceId: string, id: string): Promise<CallRow> {
  const row = await findCall(db, workspaceId, id)
  if (!row) throw notFound('call')
  return row
}

const live = (row: CallRow) => conflict(`the call is ${row.status}; wait until it has ended`, { status: row.status })

/** Export documents of a batch of ended calls, in the order given. */
export async function documentsFor(deps: RecordsDeps, rows: CallRow[], now = new Date()): Promise<ExportDocument[]> {
  const parts = await repo.partsOf(deps.db, rows.map((r) => r.id))
  return rows.map((r) =>
    exportDocument(r, {
      analysis: parts.analyses.get(r.id),
      evaluations: parts.evaluations.get(r.id) ?? [],
      labels: parts.labels.get(r.id) ?? [],
      recordingUrl: r.recording_path ? signedRecordingUrl(deps.baseUrl, deps.linkKey, r.id, now, deps.recordingUrlTtlSec) : null,
    }),
  )
}

export async function exportCall(deps: RecordsDeps, workspaceId: string, id: string): Promise<ExportDocument> {
  const row = await callRow(deps.db, workspaceId, id)
  if (row.status !== 'ended') throw live(row)
  return (await documentsFor(deps, [row]))[0]!
}

/** The export document of a call in any workspace (the webhook sender's renderer). */
export async function exportCallById(deps: RecordsDeps, id: string): Promise<ExportDocument | null> {
  const row = await deps.db.selectFrom('calls').selectAll().where('id', '=', id).executeTakeFirst()
  return row ? ((await documentsFor(deps, [row]))[0] ?? null) : null
}

/**
 * Deletes a call's record. Its recording stays (the API contract's default) unless
 * `deleteRecording`: then the recording goes first, so a failure leaves a record that still
 * points at what is left, never a file that nothing points at.
 */
export async function deleteCall(db: Db, workspaceId: string, id: string, opts: { deleteRecording?: boolean; storage?: RecordingStorage } = {}): Promise<void> {
  const row = await callRow(db, workspaceId, id)
  if (row.status !== 'ended') throw live(row)
  if (opts.deleteRecording && row.recording_path) {
    if (!opts.storage) throw new Error('deleteCall: deleting the recording needs the storage')
    await opts.storage.remove(row.recording_path)
  }
  const res = await retryOnDeadlock(() => ledger.deleteEndedCall(db, workspaceId, id))
  if (res.numDeletedRows === 0n) throw notFound('call')
}

/** Removes the recording (file or object); the record stays, with recordingUrl null. */
export async function deleteRecording(db: Db, storage: RecordingStorage, workspaceId: string, id: string): Promise<void> {
  const row = await callRow(db, workspaceId, id)
  if (row.status !== 'ended') throw live(row)
  if (!row.recording_path) throw notFound('recording')
  await storage.remove(row.recording_path)
  await ledger.forgetRecording(db, id)
}

export async function setLabels(db: Db, workspaceId: string, id: string, labels: string[]): Promise<string[]> {
  await callRow(db, workspaceId, id)
  const unique = [...new Set(labels)]
  await repo.replaceLabels(db, workspaceId, id, unique, nowIso())
  return repo.labelsOf(db, id)
}

const CONTROL = /[\u0000-\u001f\u007f]/

export async function addLabel(db: Db, workspaceId: string, id: string, label: string): Promise<string[]> {
  if (label.length < 1 || label.length > 64 || CONTROL.test(label)) throw validation([{ path: 'label', message: '1-64 characters without control characters' }])
  await callRow(db, workspaceId, id)
  const current = await repo.labelsOf(db, id)
  if (!current.includes(label) && current.length >= MAX_LABELS) throw validation([{ path: 'label', message: `a call carries at most ${MAX_LABELS} labels` }])
  await repo.addLabel(db, workspaceId, id, label, nowIso())
  return repo.labelsOf(db, id)
}

export async function removeLabel(db: Db, workspaceId: string, id: string, label: string): Promise<string[]> {
  await callRow(db, workspaceId, id)
  const res = await repo.removeLabel(db, id, label)
  if (res.numDeletedRows === 0n) throw notFound('label')
  return repo.labelsOf(db, id)
}

export async function addEvaluation(db: Db, workspaceId: string, id: string, body: EvaluationBody, userId: string): Promise<Evaluation> {
  await callRow(db, workspaceId, id)
  let evaluatorName = body.evaluatorName?.trim()
  if (!evaluatorName) {
    const user = await db.selectFrom('users').select('email').where('id', '=', userId).executeTakeFirst()
    evaluatorName = user?.email ?? userId
  }
  const row = {
    id: newId('eval'),
    call_id: id,
    workspace_id: workspaceId,
    type: 'manual' as const,
    score: body.score,
    evaluator_name: evaluatorName,
    comment: body.comment ?? '',
    criteria: JSON.stringify(body.criteria ?? []),
    created_at: nowIso(),
  }
  await repo.insertEvaluation(db, row)
  return toEvaluation(row)
}

export async function listEvaluations(db: Db, workspaceId: string, id: string): Promise<Evaluation[]> {
  await callRow(db, workspaceId, id)
  return (await repo.evaluationsOf(db, id)).map(toEvaluation)
}

export async function deleteEvaluation(db: Db, workspaceId: string, id: string, evaluationId: string): Promise<void> {
  await callRow(db, workspaceId, id)
  const res = await repo.deleteEvaluation(db, id, evaluationId)
  if (res.numDeletedRows === 0n) throw notFound('evaluation')
}

