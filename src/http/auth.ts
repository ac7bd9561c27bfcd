import { Elysia } from 'elysia'
import type { Authenticate, Principal } from '../features/api-keys/index.ts'
import { AppError } from '../platform/errors.ts'
import { type Permission, roleHolds } from './permissions.ts'
import { RateLimiter } from './rate-limit.ts'

export type { Authenticate, Principal }

// RFC 9110 section 11.1: the scheme name is case-insensitive (bearer, BEARER)
const BEARER = /^Bearer +([A-Za-z0-9_\-.~+/]+=*)$/i

const tooMany = (wait: number, message: string) =>
  new AppError(429, 'rate_limited', message, { retryAfterSec: wait }, { 'retry-after': String(wait) })

/** Failed authentications are limited per source address: guessing keys gets 429, then nothing. */
function refuseWhileBlocked(wait: number): void {
  if (wait > 0) throw tooMany(wait, `too many failed authentications from this address; retry in ${wait} s`)
}

const unauthorized = (message: string) =>
  new AppError(401, 'unauthorized', message, undefined, { 'www-authenticate': 'Bearer' })

/**
 * The one place where access is decided. A route declares `{ permission: 'members:manage' }`;
 * this macro authenticates the bearer key, applies the per-key rate limit, hides other
 * workspaces behind 404 and checks the role against the permission matrix. It runs as a
 * transform hook because Elysia validates bodies after transforms and before resolves: a caller
 * without access must get 401/403/404, never a validation error. The declared permission is
 * tagged on the hook so the route inventory can read it back.
 */
export function createAuth(
  authenticate: Authenticate,
  limiter: RateLimiter,
  failures: RateLimiter = new RateLimiter(0, 0),
) {
  return new Elysia({ name: 'auth' }).macro({
    permission(permission: Permission) {
      // Elysia infers from each hook's source which parts of the context to prepare; the header
      // is read from the request and the context is never passed whole to a function, or every
      // request would pay for copied headers, parsed cookies and query.
      const tokenOf = (header: string | null) => {
        if (!header) throw unauthorized('missing Authorization header; send Authorization: Bearer <api key>')
        const match = BEARER.exec(header)
        if (!match) throw unauthorized('malformed Authorization header; expected Bearer <api key>')
        return match[1] as string
      }
      const identify = (header: string | null) => authenticate(tokenOf(header), new Date())
      const admit = (principal: Principal, params: Record<string, string> | undefined) => {
        const wait = limiter.take(principal.keyId, Date.now())
        if (wait > 0) throw tooMany(wait, `too many requests; retry in ${wait} s`)
        const workspaceId = params?.workspace_id
        if (workspaceId !== undefined && workspaceId !== principal.workspaceId) throw new AppError(404, 'not_found', 'workspace not found')
        if (!roleHolds(principal.role, permission) && !principal.grants?.includes(permission)) {
          throw new AppError(403, 'forbidden', `role ${principal.role} may not do this (needs ${permission})`, { permission, role: principal.role })
        }
      }
      // One hook for both engines: a synchronous hook and handler for SQLite's inline key read
      // measured no faster through app.handle than awaiting it.
      const transform = async (ctx: AuthContext) => {
        // Source addresses are looked up only while some address has failed recently.
        const source = () => ctx.server?.requestIP(ctx.request)?.address ?? 'unknown'
        if (failures.size > 0) refuseWhileBlocked(failures.waitFor(source(), Date.now()))
        let principal: Principal
        try {
          principal = await identify(ctx.request.headers.get('authorization'))
        } catch (err) {
          if (err instanceof AppError && err.status === 401) refuseWhileBlocked(failures.take(source(), Date.now()))
          throw err
        }
        admit(principal, ctx.params)
        ctx.principal = principal
      }
      const resolve = (ctx: object) => ({ principal: (ctx as AuthContext).principal as Principal })
      return {
        transform: Object.assign(transform, { permission }),
        resolve,
        detail: { security: [{ bearer: [] }], 'x-permission': permission } as Record<string, unknown>,
      }
    },
  })
}

// The principal travels on Elysia's per-request context object from transform to resolve
// (a WeakMap keyed by the request cost a microsecond a request in garbage collection).
interface AuthContext {
  request: Request
  server?: { requestIP(request: Request): { address: string } | null } | null
  params?: Record<string, string>
  principal?: Principal
}

/** The permission a route declared through the macro, if any. */
export function declaredPermission(route: { hooks: { transform?: unknown } }): Permission | undefined {
  const hooks = route.hooks.transform
  const list = Array.isArray(hooks) ? hooks : hooks ? [hooks] : []
  for (const h of list) {
    const fn = (h as { fn?: { permission?: Permission } }).fn ?? (h as { permission?: Permission })
    if (fn.permission) return fn.permission
  }
  return undefined
}

export type AuthPlugin = ReturnType<typeof createAuth>
