import { Elysia, t } from 'elysia'
import type { Config } from '../../platform/config/index.ts'
import type { Db } from '../../platform/db/index.ts'
import type { AuthPlugin } from '../../http/auth.ts'
import { Ok, WorkspaceParams } from '../../platform/schema/index.ts'
import { secretBoxFor } from '../../platform/secrets/index.ts'
import { AvailableNumber, CarrierSettings, PutCarrierSettingsBody, SearchQuery } from './carrier.model.ts'
import * as service from './carrier.service.ts'


export function carrierController(db: Db, config: Config, auth: AuthPlugin) {
  const box = () => secretBoxFor(config.DATA_DIR)
  return new Elysia({ prefix: '/api/workspaces/:workspace_id/carrier', tags: ['Carrier'] })
    .use(auth)
    .get('/available-numbers', ({ params, query }) => service.searchAvailable(db, box(), config, params.workspace_id, query), {
      permission: 'numbers:read',
      params: WorkspaceParams,
      query: SearchQuery,
      response: t.Object({ numbers: t.Array(AvailableNumber) }),
      detail: { summary: "Search the carrier's available local numbers by country and area code" },
    })
    .get('/settings', async ({ params }) => ({ carrierSettings: await service.getSettings(db, config, params.workspace_id) }), {
      permission: 'numbers:manage',
      params: WorkspaceParams,
      response: t.Object({ carrierSettings: CarrierSettings }),
      detail: { summary: 'Carrier credentials in use (never the auth token)' },
    })
    .put(
      '/settings',
      async ({ params, body }) => ({ carrierSettings: await service.putSettings(db, box(), params.workspace_id, body.accountSid, body.authToken) }),
      {
        permission: 'numbers:manage',
        params: WorkspaceParams,
        body: PutCarrierSettingsBody,
        response: t.Object({ carrierSettings: CarrierSettings }),
        detail: { summary: "Set this workspace's own carrier account (overrides CARRIER_ACCOUNT_SID/CARRIER_AUTH_TOKEN)" },
      },
    )
    .delete(
      '/settings',
      async ({ params }) => {
        await service.deleteSettings(db, params.workspace_id)
        return { ok: true as const }
      },
      {
        permission: 'numbers:manage',
        params: WorkspaceParams,
        response: Ok,
        detail: { summary: "Remove the workspace's carrier account; the appliance config applies again" },
      },
    )
}
