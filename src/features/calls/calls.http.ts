import { Elysia, t } from 'elysia'
import type { AuthPlugin } from '../../http/auth.ts'
import { IdParams, NextCursor } from '../../platform/schema/index.ts'
import { recordingStorageFor } from '../recordings/index.ts'
import type { PublicBase } from '../../platform/net/index.ts'
import { recordingResponse } from './records/recording-response.ts'
import { Call, CallsQuery, PlaceCallBody } from './calls.model.ts'
import * as service from './calls.service.ts'
import type { CallsDeps } from './calls.service.ts'


export function callsController(base: Omit<CallsDeps, 'baseUrl'>, publicBase: PublicBase, auth: AuthPlugin) {
  const deps = (): CallsDeps => ({ ...base, baseUrl: publicBase() })
  const One = t.Object({ call: Call })
  return new Elysia({ prefix: '/api/calls', tags: ['Calls'] })
    .use(auth)
    .post('', async ({ body, principal }) => ({ call: await service.placeCall(deps(), principal.workspaceId, body) }), {
      permission: 'calls:write',
      body: PlaceCallBody,
      response: One,
      detail: {
        summary: 'Place one outbound call with an agent from a number',
        description:
          "Dials `to` through the number's SIP trunk with the number as caller ID, and runs the agent (the number's outbound " +
          'agent unless agentId is given) once answered; dynamicVariables fill {{name}} in its prompt and welcome message. ' +
          'Returns the call as it is after the INVITE went out (status ringing, or ended when dialling failed at once); poll ' +
          'GET /api/calls/{id} for the outcome. Errors: 422 validation_failed, 503 not_ready (SIP not running, or no RTP port free).',
      },
    })
    .get('', ({ query, principal }) => service.listCalls(deps(), principal.workspaceId, query), {
      permission: 'calls:read',
      query: CallsQuery,
      response: t.Object({ calls: t.Array(Call), nextCursor: NextCursor }),
      detail: {
        summary: 'List calls, newest first, with filters',
        description:
          'Filters combine (AND): agentId, phoneNumberId, type (or direction), status, outcome, label, sentiment (of the analysis), ' +
          'campaignId (the outbound job) and createdAfter/createdBefore (ISO 8601). GET /api/calls/export streams the same selection.',
      },
    })
    .get('/:id', async ({ params, principal }) => ({ call: await service.getCall(deps(), principal.workspaceId, params.id) }), {
      permission: 'calls:read',
      params: IdParams,
      response: One,
      detail: { summary: 'Get a call with its transcript, metrics and cost' },
    })
    .get(
      '/:id/recording',
      async ({ params, principal, request }) => {
        const row = await service.findCallRow(base.db, principal.workspaceId, params.id)
        return recordingResponse(recordingStorageFor(base.config), row.recording_path, request.headers.get('range'), 'private, no-store')
      },
      {
        permission: 'calls:read',
        params: IdParams,
        detail: {
          summary: 'Download the call recording: a stereo WAV, caller on the left, agent on the right, 16 kHz',
          description:
            'Range requests get 206 (one byte range; 416 when unsatisfiable); several ranges, another unit or a malformed Range are ignored ' +
            '(RFC 9110): the whole file with 200. Any node serves it: from its disk, or streamed from object storage.',
        },
      },
    )
}
export { callActionsController } from './actions/actions.http.ts'
export { analysisSettingsController } from './analysis/settings.http.ts'
export { recordingLinkRoute } from './records/recording-route.http.ts'
export { recordsController } from './records/records.http.ts'
