import type { AnyElysia } from 'elysia'
import { declaredPermission } from './auth.ts'
import { PERMISSIONS, type Permission } from './permissions.ts'

export interface RouteRule {
  method: string
  path: string
  permission: Permission | undefined
}

/** Every registered route with the permission it declared (undefined when it declared none). */
export function routeInventory(app: AnyElysia): RouteRule[] {
  return app.routes.map((r) => ({ method: r.method, path: r.path, permission: declaredPermission(r as never) }))
}

/** /api routes without a known permission: each one is a hole in access control. */
export function unguardedApiRoutes(app: AnyElysia): string[] {
  return routeInventory(app)
    .filter((r) => r.path.startsWith('/api') && (r.permission === undefined || !(r.permission in PERMISSIONS)))
    .map((r) => `${r.method} ${r.path}`)
}
