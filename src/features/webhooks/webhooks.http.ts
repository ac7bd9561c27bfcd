import { Elysia, t } from 'elysia'
import type { Db } from '../../platform/db/index.ts'
import type { AuthPlugin } from '../../http/auth.ts'
import { roleHolds } from '../../http/permissions.ts'
import { IdParams, NextCursor, WorkspaceParams } from '../../platform/schema/index.ts'
import type { SecretBox } from '../../platform/secrets/index.ts'
import { listDeliveries, retryDelivery } from './deliveries.ts'
import { rotateSecret, workspaceSecrets } from './secrets.ts'
import { DeliveriesQuery, Delivery, SecretResponse } from './webhooks.model.ts'


const SIGNING =
  'Events are POSTed as JSON `{type, timestamp, data}` and signed by the Standard Webhooks scheme: headers webhook-id ' +
  '(the same on every attempt of one event), webhook-timestamp (Unix seconds of the attempt) and webhook-signature ' +
  '(`v1,<base64 HMAC-SHA256 of "id.timestamp.body">`, one per valid secret, space-separated).'

export function webhooksController(deps: { db: Db; box: SecretBox; wake(): void }, auth: AuthPlugin) {
  const { db, box } = deps
  return new Elysia({ tags: ['Webhooks'] })
    .use(auth)
    .get('/api/workspaces/:workspace_id/webhook-secret', ({ params }) => workspaceSecrets(db, box, params.workspace_id), {
      permission: 'webhooks:manage',
      params: WorkspaceParams,
      response: SecretResponse,
      detail: { summary: "Read the workspace's webhook signing secret (admins)", description: `${SIGNING} The secret is created on first read.` },
    })
    .post('/api/workspaces/:workspace_id/webhook-secret', ({ params }) => rotateSecret(db, box, params.workspace_id), {
      permission: 'webhooks:manage',
      params: WorkspaceParams,
      response: SecretResponse,
      detail: {
        summary: 'Rotate the webhook signing secret (admins)',
        description: 'A new secret signs from now on; the previous one keeps signing too (a second v1 signature) for 24 hours, so receivers can switch without losing events.',
      },
    })
    .get('/api/webhook-deliveries', ({ query, principal }) => listDeliveries(db, principal.workspaceId, query, roleHolds(principal.role, 'webhooks:manage')), {
      permission: 'webhooks:read',
      query: DeliveriesQuery,
      response: t.Object({ deliveries: t.Array(Delivery), nextCursor: NextCursor }),
      detail: {
        summary: 'List webhook deliveries with their attempts, newest first',
        description:
          `${SIGNING} A delivery is tried with a 10 s timeout; 2xx is done, 410 turns the agent's webhookUrl off, anything else is ` +
          'retried after 5 s, 5 min, 30 min, 2 h, 5 h, 10 h and 10 h (±20 % jitter; WEBHOOK_RETRY_SCHEDULE), about 27 h in all, then it is failed. ' +
          '`error`/`lastError` is a coarse code for everyone; admins also get `errorDetail`/`lastErrorDetail` with the exact failure, which is logged too.',
      },
    })
    .post(
      '/api/webhook-deliveries/:id/retry',
      async ({ params, principal }) => {
        const delivery = await retryDelivery(db, principal.workspaceId, params.id, new Date(), roleHolds(principal.role, 'webhooks:manage'))
        deps.wake()
        return { delivery }
      },
      {
        permission: 'webhooks:write',
        params: IdParams,
        response: t.Object({ delivery: Delivery }),
        detail: { summary: 'Send a delivery again now, with the same webhook-id', description: 'Errors: 404 not_found, 409 conflict while it is being sent.' },
      },
    )
}
