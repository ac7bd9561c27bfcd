import { Elysia, t } from 'elysia'
import { ApiKeyWithSecret } from '../api-keys/index.ts'
import type { Db } from '../../platform/db/index.ts'
import type { AuthPlugin } from '../../http/auth.ts'
import { NextCursor, Ok, WorkspaceParams } from '../../platform/schema/index.ts'
import { PaginationQuery } from '../../platform/schema/index.ts'
import * as members from './members.service.ts'
import {
  CreateWorkspaceBody,
  InviteMemberBody,
  Member,
  MemberParams,
  UpdateMemberBody,
  MemberGrantsBody,
  UpdateWorkspaceBody,
  Workspace,
  WorkspaceListItem,
  WorkspaceWithUse,
} from './workspaces.model.ts'
import * as workspaces from './workspaces.service.ts'


/** `callsUp`: the workspace's calls up on this node (absent: the call runtime is not running, none). */
export function workspacesController(db: Db, auth: AuthPlugin, callsUp: (workspaceId: string) => number = () => 0) {
  return new Elysia({ prefix: '/api/workspaces', tags: ['Workspaces'] })
    .use(auth)
    .post('', ({ body, principal }) => workspaces.createWorkspace(db, principal, body.name), {
      permission: 'workspaces:create',
      body: CreateWorkspaceBody,
      response: t.Object({ workspace: Workspace, apiKey: ApiKeyWithSecret }),
      detail: {
        summary: 'Create a workspace; the caller becomes its admin and gets its first admin key',
        description: "Only with an admin key of the operator's workspace (the first one, made at first start): each workspace has its own quotas, so members and admins of other workspaces get 403.",
      },
    })
    .get('', ({ query, principal }) => workspaces.listWorkspaces(db, principal.userId, query), {
      permission: 'workspaces:read',
      query: PaginationQuery,
      response: t.Object({ workspaces: t.Array(WorkspaceListItem), nextCursor: NextCursor }),
      detail: { summary: "List the workspaces the key's user belongs to, with the user's role in each" },
    })
    .get('/:workspace_id', async ({ params }) => ({ workspace: { ...(await workspaces.getWorkspace(db, params.workspace_id)), callsInProgress: callsUp(params.workspace_id) } }), {
      permission: 'workspaces:read',
      params: WorkspaceParams,
      response: t.Object({ workspace: WorkspaceWithUse }),
      detail: { summary: 'Get the workspace, with its calls in progress on this node against its maxConcurrentCalls' },
    })
    .patch(
      '/:workspace_id',
      async ({ params, body }) => ({ workspace: await workspaces.updateWorkspace(db, params.workspace_id, body) }),
      {
        permission: 'workspaces:update',
        params: WorkspaceParams,
        body: UpdateWorkspaceBody,
        response: t.Object({ workspace: t.Object({ id: t.String(), name: t.String(), updatedAt: t.String() }) }),
        detail: {
          summary: 'Update a workspace',
          description: 'name, and maxConcurrentCalls: the calls of every kind (inbound, outbound, web, media stream) the workspace may have up at once on a node; more are refused (SIP 503, HTTP 503 not_ready, with Retry-After). null is unlimited (the default). An admin sets it; members (whose keys it bounds) get 403.',
        },
      },
    )
    .post(
      '/:workspace_id/members',
      async ({ params, body }) => ({ member: await members.inviteMember(db, params.workspace_id, body.email, body.role) }),
      {
        permission: 'members:manage',
        params: WorkspaceParams,
        body: InviteMemberBody,
        response: t.Object({ member: Member }),
        detail: { summary: 'Invite a workspace member (email required; role defaults to member); 409 when already a member' },
      },
    )
    .get('/:workspace_id/members', ({ params, query }) => members.listMembers(db, params.workspace_id, query), {
      permission: 'members:read',
      params: WorkspaceParams,
      query: PaginationQuery,
      response: t.Object({ members: t.Array(Member), nextCursor: NextCursor }),
      detail: { summary: 'List members' },
    })
    .patch(
      '/:workspace_id/members/:user_id',
      async ({ params, body }) => ({ member: await members.changeRole(db, params.workspace_id, params.user_id, body.role) }),
      {
        permission: 'members:manage',
        params: MemberParams,
        body: UpdateMemberBody,
        response: t.Object({ member: Member }),
        detail: { summary: "Change a member's role; the last admin cannot be demoted (409 last_admin)" },
      },
    )
    .put(
      '/:workspace_id/members/:user_id/grants',
      async ({ params, body }) => ({ member: await members.setGrants(db, params.workspace_id, params.user_id, body.grants) }),
      {
        permission: 'members:manage',
        params: MemberParams,
        body: MemberGrantsBody,
        response: t.Object({ member: Member }),
        detail: {
          summary: "Set the permissions a member holds beyond their role: calls:supervise (a supervisor's actions on live calls)",
          description: 'The list replaces the grants the member had; `[]` takes them away. Their API keys act with the new set at once.',
        },
      },
    )
    .delete(
      '/:workspace_id/members/:user_id',
      async ({ params }) => {
        await members.removeMember(db, params.workspace_id, params.user_id)
        return { ok: true as const }
      },
      {
        permission: 'members:manage',
        params: MemberParams,
        response: Ok,
        detail: { summary: "Remove a member and revoke their keys; the last admin cannot be removed (409 last_admin)" },
      },
    )
}
