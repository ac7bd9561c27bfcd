import { Elysia, t } from 'elysia'
import type { Db } from '../../platform/db/index.ts'
import type { AuthPlugin } from '../../http/auth.ts'
import { NextCursor, Ok, WorkspaceParams } from '../../platform/schema/index.ts'
import { PaginationQuery } from '../../platform/schema/index.ts'
import { ApiKey, ApiKeyWithSecret, CreateApiKeyBody } from './api-keys.model.ts'
import * as service from './api-keys.service.ts'


export function apiKeysController(db: Db, auth: AuthPlugin) {
  return new Elysia({ prefix: '/api/workspaces/:workspace_id/api-keys', tags: ['API keys'] })
    .use(auth)
    .post(
      '',
      async ({ params, body, principal }) => ({
        apiKey: await service.createKey(db, params.workspace_id, body.userId ?? principal.userId, body),
      }),
      {
        permission: 'api-keys:manage',
        params: WorkspaceParams,
        body: CreateApiKeyBody,
        response: t.Object({ apiKey: ApiKeyWithSecret }),
        detail: { summary: 'Create an API key (the secret is in the response only this once)' },
      },
    )
    .get('', ({ params, query }) => service.listKeys(db, params.workspace_id, query), {
      permission: 'api-keys:manage',
      params: WorkspaceParams,
      query: PaginationQuery,
      response: t.Object({ apiKeys: t.Array(ApiKey), nextCursor: NextCursor }),
      detail: { summary: 'List active API keys (never the secrets)' },
    })
    .delete(
      '/:key_id',
      async ({ params }) => {
        await service.revoke(db, params.workspace_id, params.key_id)
        return { ok: true as const }
      },
      {
        permission: 'api-keys:manage',
        params: t.Object({ workspace_id: t.String(), key_id: t.String() }),
        response: Ok,
        detail: { summary: 'Revoke an API key; it stops working at once' },
      },
    )
}
