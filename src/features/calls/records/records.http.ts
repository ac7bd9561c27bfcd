// Export, delete, analysis, evaluations and labels of call records: the routes.
import { Elysia, t } from 'elysia'
import type { Db } from '../../../platform/db/index.ts'
import type { AuthPlugin } from '../../../http/auth.ts'
import { IdParams, Ok } from '../../../platform/schema/index.ts'
import { CallFilters } from '../calls.model.ts'
import { exportStream } from './bulk-export.ts'
import { EvaluationBody, Evaluation, ExportDocument, Label, LabelParams, LabelsBody, Analysis } from './records.model.ts'
import * as service from './records.service.ts'
import type { RecordsDeps } from './records.service.ts'
import { rerunAnalysis } from './rerun.ts'

const Labels = t.Object({ labels: t.Array(t.String()) })

/** Export, delete, analysis, evaluations and labels of call records; `deps` is read per request (links need the listening port). */
export function recordsController(db: Db, deps: () => RecordsDeps, auth: AuthPlugin, wakeAnalysis: () => void) {
  return new Elysia({ prefix: '/api/calls', tags: ['Call records'] })
    .use(auth)
    .get(
      '/export',
      ({ query, principal }) => {
        const { format = 'ndjson', ...filters } = query
        const body = exportStream(deps(), principal.workspaceId, filters, format)
        const type = format === 'csv' ? 'text/csv; charset=utf-8' : 'application/x-ndjson'
        return new Response(body, { headers: { 'content-type': type, 'content-disposition': `attachment; filename="calls.${format}"` } })
      },
      {
        permission: 'calls:read',
        query: t.Object({ format: t.Optional(t.Union([t.Literal('ndjson'), t.Literal('csv')], { default: 'ndjson' })), ...CallFilters }),
        detail: {
          summary: 'Export every ended call matching the filters, streamed (NDJSON or CSV)',
          description:
            'Newest first. ndjson: one call export document per line. csv: one row per call with a header line (totals, analysis, ' +
            'labels joined by ";", the transcript as JSON text). Streamed in batches as the client reads, for archiving any number of calls.',
        },
      },
    )
    .get('/:id/export', ({ params, principal }) => service.exportCall(deps(), principal.workspaceId, params.id), {
      permission: 'calls:read',
      params: IdParams,
      response: ExportDocument,
      detail: {
        summary: 'Export a call: the call export document',
        description:
          'Units: call.duration whole seconds; transcript[].timestamp seconds from the start of the conversation (fractional); ' +
          'metrics.ttsDuration seconds; latencyP50/P99 milliseconds (voice-to-voice); cost in USD. recordingUrl is a signed link that ' +
          'needs no API key. Errors: 404 not_found, 409 conflict while the call is in progress.',
      },
    })
    .delete(
      '/:id',
      async ({ params, principal, query }) => {
        const deleteRecording = query.deleteRecording === 'true'
        await service.deleteCall(db, principal.workspaceId, params.id, { deleteRecording, storage: deleteRecording ? deps().storage : undefined })
        return { ok: true as const }
      },
      {
        permission: 'calls:write',
        params: IdParams,
        query: t.Object({
          deleteRecording: t.Optional(
            t.Union([t.Literal('true'), t.Literal('false')], {
              default: 'false',
              description: 'true: remove the recording (file or object) too, before the record. Default false: the recording stays, as the API contract says.',
            }),
          ),
        }),
        response: Ok,
        detail: {
          summary: 'Delete a call record (and with deleteRecording=true its recording)',
          description:
            'Permanently removes the record, its transcript, analysis, evaluations, labels and webhook deliveries. The recording file ' +
            'stays unless deleteRecording=true (then it is removed first). A recording left behind is removed by the retention sweep ' +
            'once older than the retention, or by `voice-agent recordings gc`. Errors: 404 not_found, 409 conflict while the call is in progress.',
        },
      },
    )
    .delete(
      '/:id/recording',
      async ({ params, principal }) => {
        await service.deleteRecording(db, deps().storage, principal.workspaceId, params.id)
        return { ok: true as const }
      },
      { permission: 'calls:write', params: IdParams, response: Ok, detail: { summary: "Delete a call's recording file; the record stays with recordingUrl null" } },
    )
    .post(
      '/:id/analysis',
      async ({ params, principal }) => {
        const analysis = await rerunAnalysis(db, principal.workspaceId, params.id)
        wakeAnalysis()
        return { analysis }
      },
      {
        permission: 'calls:write',
        params: IdParams,
        response: t.Object({ analysis: Analysis }),
        detail: {
          summary: 'Run the call analysis again',
          description:
            'The analysis becomes pending and runs in the background (LLM with one is configured, else offline); poll the export. ' +
            'The automatic evaluation is replaced. Errors: 404, 409 while the call is in progress.',
        },
      },
    )
    .get('/:id/evaluations', async ({ params, principal }) => ({ evaluations: await service.listEvaluations(db, principal.workspaceId, params.id) }), {
      permission: 'calls:read',
      params: IdParams,
      response: t.Object({ evaluations: t.Array(Evaluation) }),
      detail: { summary: "List a call's evaluations, oldest first" },
    })
    .post(
      '/:id/evaluations',
      async ({ params, principal, body }) => ({ evaluation: await service.addEvaluation(db, principal.workspaceId, params.id, body, principal.userId) }),
      {
        permission: 'calls:write',
        params: IdParams,
        body: EvaluationBody,
        response: t.Object({ evaluation: Evaluation }),
        detail: { summary: 'Add a manual evaluation (score 0-100)', description: "evaluatorName defaults to the API key's user (email)." },
      },
    )
    .delete(
      '/:id/evaluations/:evaluation_id',
      async ({ params, principal }) => {
        await service.deleteEvaluation(db, principal.workspaceId, params.id, params.evaluation_id)
        return { ok: true as const }
      },
      { permission: 'calls:write', params: t.Object({ id: t.String(), evaluation_id: t.String() }), response: Ok, detail: { summary: 'Delete an evaluation' } },
    )
    .put('/:id/labels', async ({ params, principal, body }) => ({ labels: await service.setLabels(db, principal.workspaceId, params.id, body.labels) }), {
      permission: 'calls:write',
      params: IdParams,
      body: LabelsBody,
      response: Labels,
      detail: { summary: "Replace a call's labels", description: 'A label is 1-64 characters without control characters; at most 50 per call; duplicates count once.' },
    })
    .post(
      '/:id/labels',
      async ({ params, principal, body }) => ({ labels: await service.addLabel(db, principal.workspaceId, params.id, body.label) }),
      { permission: 'calls:write', params: IdParams, body: t.Object({ label: Label }), response: Labels, detail: { summary: 'Add one label to a call' } },
    )
    .delete(
      '/:id/labels/:label',
      async ({ params, principal }) => ({ labels: await service.removeLabel(db, principal.workspaceId, params.id, params.label) }),
      { permission: 'calls:write', params: LabelParams, response: Labels, detail: { summary: 'Remove one label from a call (URL-encode it)' } },
    )
}
