import { t } from 'elysia'
import { Name } from '../../platform/schema/index.ts'

export const RoleSchema = t.Union([t.Literal('member'), t.Literal('admin')])
/** Permissions an admin may grant a member beyond the member role (src/http/permissions.ts). */
export const GRANTABLE = ['calls:supervise'] as const
export const GrantSchema = t.Union([t.Literal('calls:supervise')])

export const Workspace = t.Object({
  id: t.String(),
  name: t.String(),
  /** The admins' cap on the workspace's calls up at once (inbound, outbound, web, stream); null: unlimited. */
  maxConcurrentCalls: t.Union([t.Integer(), t.Null()]),
  createdAt: t.String({ format: 'date-time' }),
  updatedAt: t.String({ format: 'date-time' }),
})
export type Workspace = typeof Workspace.static

export const WorkspaceListItem = t.Composite([Workspace, t.Object({ role: RoleSchema })])

export const WorkspaceName = Name({ minLength: 1, maxLength: 100, notBlank: true })
export const CreateWorkspaceBody = t.Object({ name: WorkspaceName })
export const MaxConcurrentCalls = t.Union([t.Integer({ minimum: 1, maximum: 100_000 }), t.Null()], { description: 'calls of every kind the workspace may have up at once on a node; null: unlimited. Set by an admin.' })
export const UpdateWorkspaceBody = t.Object({ name: t.Optional(WorkspaceName), maxConcurrentCalls: t.Optional(MaxConcurrentCalls) })
/** GET: the limit against its use on this node. */
export const WorkspaceWithUse = t.Composite([Workspace, t.Object({ callsInProgress: t.Integer({ description: 'calls of the workspace up on this node now, counted against maxConcurrentCalls' }) })])

export const Member = t.Object({
  userId: t.String(),
  email: t.String(),
  role: RoleSchema,
  grants: t.Array(GrantSchema, { description: 'permissions granted beyond the role (PUT .../grants); an admin holds them all anyway' }),
  joinedAt: t.String({ format: 'date-time' }),
})
export type Member = typeof Member.static

export const InviteMemberBody = t.Object({
  email: t.String({ format: 'email', maxLength: 254 }),
  role: t.Optional(RoleSchema),
})
export const UpdateMemberBody = t.Object({ role: RoleSchema })
export const MemberGrantsBody = t.Object({ grants: t.Array(GrantSchema, { uniqueItems: true, description: 'the whole set: it replaces the grants the member had' }) })
export const MemberParams = t.Object({ workspace_id: t.String(), user_id: t.String() })
