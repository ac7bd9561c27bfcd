// Every route refuses fields it does not declare, the way Stripe refuses unknown parameters: a
// misspelt or misplaced field is an error naming it, never silently ignored (docs/http.md).
import type { TSchema } from '@sinclair/typebox'
import { type AnyElysia, t } from 'elysia'
import { AppError } from '../platform/errors.ts'
import { type UnknownFieldIssue, unknownFieldIssues } from '../platform/schema/index.ts'

/** What a route without a body or query schema declares: nothing. */
const NOTHING = t.Object({})

interface Declared {
  body?: TSchema
  query?: TSchema
}

/** An issue of a validation error: ours (body or query) or Elysia's and the services' (location may be absent). */
interface Issue {
  path: string
  location?: string
  message: string
}

/**
 * Set on Elysia's per-request context when the body is parsed, read once the caller is known.
 * Hooks pass this member, never the context whole: Elysia would then prepare every part of it
 * (headers, cookies, query) for every request.
 */
export interface FieldsSeen {
  undeclared?: UnknownFieldIssue[]
}

/**
 * The body is looked at as it was sent, when parsed: Elysia's mirror strips undeclared members
 * before validation. The refusal waits for the caller to be authenticated (routes authenticate
 * in their transform), like any validation error: a caller without a key learns nothing but 401.
 */
export function declaredFields(getApp: () => AnyElysia) {
  let known: { routes: number; byRoute: Map<string, Declared> } | undefined
  const declared = (method: string, route: string | undefined): Declared | undefined => {
    const app = getApp()
    if (!known || known.routes !== app.routes.length) {
      const byRoute = new Map<string, Declared>()
      for (const r of app.routes) byRoute.set(`${r.method} ${r.path}`, { body: (r.hooks as Declared).body, query: (r.hooks as Declared).query })
      known = { routes: app.routes.length, byRoute }
    }
    return route === undefined ? undefined : known.byRoute.get(`${method === 'HEAD' ? 'GET' : method} ${route}`)
  }
  /**
   * The query string of an /api route. Routes outside /api take what their callers send: the
   * carrier's voice webhook its own parameters, a browser or a probe whatever it adds.
   */
  const inQuery = (request: Request, route: string | undefined): Issue[] => {
    if (!route?.startsWith('/api') || !request.url.includes('?')) return []
    const on = declared(request.method, route)
    if (!on) return []
    const given: Record<string, string> = {}
    for (const key of new URL(request.url).searchParams.keys()) given[key] = ''
    return unknownFieldIssues(on.query ?? NOTHING, given, 'query')
  }
  const merge = (undeclared: Issue[], others: Issue[]) => {
    const named = new Set(undeclared.map((f) => f.path))
    return [...undeclared, ...others.filter((f) => !named.has(f.path))]
  }
  const refusal = (issues: Issue[]) =>
    new AppError(issues[0]?.location === 'query' ? 400 : 422, 'validation_failed', issues.slice(0, 10).map((f) => `${f.path}: ${f.message}`).join('; '), { fields: issues })
  return {
    /** The undeclared members of a JSON body just parsed for `route`, if any. */
    inBody(method: string, route: string | undefined, body: unknown): UnknownFieldIssue[] | undefined {
      const on = declared(method, route)
      const issues = on ? unknownFieldIssues(on.body ?? NOTHING, body, 'body') : []
      return issues.length ? issues : undefined
    },
    /** Before the handler: the request's undeclared fields, if any, refused (the query's first, as Elysia validates it first). */
    refuse(inBody: UnknownFieldIssue[] | undefined, request: Request, route: string | undefined): void {
      const query = inQuery(request, route)
      if (query.length) throw refusal(query)
      if (inBody) throw refusal(inBody)
    },
    /**
     * A validation error names the undeclared fields of the same part too. Elysia validates the
     * query before the body, so undeclared query parameters answer for a body's error as well.
     */
    withUndeclared(err: AppError, inBody: UnknownFieldIssue[] | undefined, request: Request, route: string | undefined): AppError {
      const fields = err.code === 'validation_failed' ? (err.details?.fields as Issue[] | undefined) : undefined
      const location = fields?.[0]?.location
      if (!fields || (location !== 'body' && location !== 'query')) return err
      const query = inQuery(request, route)
      if (query.length) return refusal(location === 'query' ? merge(query, fields) : query)
      return inBody ? refusal(merge(inBody, fields)) : err
    },
  }
}
