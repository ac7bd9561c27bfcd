import { Elysia, t } from 'elysia'
import type { AuthPlugin } from '../../../http/auth.ts'
import { IdParams } from '../../../platform/schema/index.ts'
import { ActionBody, CallActionRecord } from './actions.model.ts'
import { actOnCall, listCallActions, type ActionDeps } from './actions.service.ts'

export function callActionsController(d: ActionDeps, auth: AuthPlugin) {
  return new Elysia({ prefix: '/api/calls', tags: ['Calls'] })
    .use(auth)
    .post('/:id/actions', async ({ params, body, principal }) => ({ action: await actOnCall(d, principal, params.id, body) }), {
      permission: 'calls:supervise',
      params: IdParams,
      body: ActionBody,
      response: t.Object({ action: CallActionRecord }),
      detail: {
        summary: "Act on a live call: say, note, hold, resume, mute or unmute the agent, hang up, transfer",
        description:
          'Carried out by the call, then kept in its audit (GET /api/calls/{id}/actions) and sent to the agent\'s webhookUrl as `call.action`. ' +
          'Returns once done: a `say` once spoken. A `say` joins the transcript as an agent line; a `note` is never spoken. ' +
          'Errors: 404 not_found (no such call in this workspace), 409 conflict (the call has ended, is not live on this node ' +
          '(details.nodeId names the node carrying it), or refused the action: e.g. `say` on hold, `note` to a workflow agent; ' +
          'a refused action is audited too, details.action), 422 validation_failed (say and note need text, transfer a target).',
      },
    })
    .get('/:id/actions', async ({ params, principal }) => ({ actions: await listCallActions(d.db, principal.workspaceId, params.id) }), {
      permission: 'calls:read',
      params: IdParams,
      response: t.Object({ actions: t.Array(CallActionRecord) }),
      detail: { summary: "A call's supervisor actions, oldest first: who, when, what and how it went" },
    })
}
