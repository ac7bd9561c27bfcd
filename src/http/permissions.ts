import type { Role } from '../features/workspaces/workspaces.table.ts'

/**
 * The permission matrix: every /api route declares exactly one permission (see auth.ts), and
 * this table says which workspace roles hold it. docs/api.md's role table mirrors it.
 */
export const PERMISSIONS = {
  'workspaces:read': ['admin', 'member'],
  // and only in the operator's workspace (workspaces.service.ts)
  'workspaces:create': ['admin'],
  'workspaces:update': ['admin'],
  'members:read': ['admin', 'member'],
  'members:manage': ['admin'],
  'api-keys:manage': ['admin'],
  'billing:manage': ['admin'],
  'numbers:read': ['admin', 'member'],
  'numbers:manage': ['admin'],
  'agents:read': ['admin', 'member'],
  'agents:write': ['admin', 'member'],
  'agents:test': ['admin', 'member'],
  'workflows:write': ['admin', 'member'],
  'calls:read': ['admin', 'member'],
  'calls:write': ['admin', 'member'],
  // a supervisor's actions on a live call (speak to the caller, hang up): admins only
  'calls:supervise': ['admin'],
  'campaigns:read': ['admin', 'member'],
  'campaigns:write': ['admin', 'member'],
  'providers:read': ['admin', 'member'],
  'webhooks:read': ['admin', 'member'],
  'webhooks:write': ['admin', 'member'],
  'webhooks:manage': ['admin'],
  'knowledge:read': ['admin', 'member'],
  'knowledge:write': ['admin', 'member'],
  'knowledge:manage': ['admin'],
} as const satisfies Record<string, readonly Role[]>

export type Permission = keyof typeof PERMISSIONS

export function roleHolds(role: Role, permission: Permission): boolean {
  return (PERMISSIONS[permission] as readonly Role[]).includes(role)
}
