import { type AnyElysia, Elysia, StatusMap } from 'elysia'
import { sql } from 'kysely'
import { agentsController, findAgentRow } from '../agents/index.ts'
import { apiKeysController } from '../api-keys/index.ts'
import { billingController } from '../billing/index.ts'
import { carrierController } from '../carrier/index.ts'
import type { Config } from '../config.ts'
import type { Db } from '../db/index.ts'
import { AppError } from '../errors.ts'
import { accessLog, type Logger } from '../log.ts'
import { numbersController } from '../numbers/index.ts'
import { providersController } from '../providers/index.ts'
import { workflowsFeature } from '../workflows/index.ts'
import { workspacesController } from '../workspaces/index.ts'
import { type AuthPlugin, createAuth, type Authenticate } from './auth.ts'
import { checkContentLength, readJsonBody } from './body.ts'
import { errorBody, toAppError } from './errors.ts'
import { openapiRoutes } from './openapi.ts'
import { RateLimiter } from './rate-limit.ts'

export interface AppDeps {
  db: Db
  config: Config
  log: Logger
  authenticate: Authenticate
}

export type FeatureMount = (deps: AppDeps, auth: AuthPlugin) => Elysia<any, any, any, any, any, any, any>

/** Feature controllers, mounted in this order. New capabilities add themselves here. */
export const FEATURES: FeatureMount[] = [
  ({ db }, auth) => workspacesController(db, auth),
  ({ db }, auth) => apiKeysController(db, auth),
  (_deps, auth) => providersController(auth),
  ({ db, config }, auth) => agentsController(db, config, auth),
  ({ db, config }, auth) => billingController(db, config, auth),
  ({ db, config }, auth) => carrierController(db, config, auth),
  ({ db, config }, auth) => numbersController(db, config, auth),
  (deps, auth) =>
    workflowsFeature(deps, auth, {
      agentExists: async (workspaceId, agentId) => (await findAgentRow(deps.db, workspaceId, agentId)) !== undefined,
      enabledTools: async (workspaceId, agentId) => {
        const agent = await findAgentRow(deps.db, workspaceId, agentId)
        return agent ? (JSON.parse(agent.enabled_tools) as string[]) : []
      },
    }),
]

const REQUEST_ID = /^[A-Za-z0-9._-]{1,64}$/

// Request ids are a random per-process prefix and a counter: unique, and cheap on the hot path.
const requestIdPrefix = `req_${crypto.randomUUID().slice(0, 8)}`
let requestCounter = 0
const nextRequestId = () => `${requestIdPrefix}_${(++requestCounter).toString(36)}`

export function buildApp(deps: AppDeps, features: FeatureMount[] = FEATURES) {
  const { config, log, db } = deps
  const started = new WeakMap<Request, { id: string; at: number }>()
  const logRequest = accessLog(log)
  const auth = createAuth(deps.authenticate, new RateLimiter(config.RATE_LIMIT_PER_SEC, config.RATE_LIMIT_BURST))

  const self: { app?: AnyElysia } = {}
  let app = new Elysia({ serve: { maxRequestBodySize: config.MAX_BODY_BYTES + 16 * 1_048_576 } })
    .onRequest(({ request, set }) => {
      const given = request.headers.get('x-request-id')
      const id = given && REQUEST_ID.test(given) ? given : nextRequestId()
      started.set(request, { id, at: performance.now() })
      set.headers['x-request-id'] = id
      checkContentLength(request, config.MAX_BODY_BYTES)
    })
    .onParse(({ request, contentType }) => readJsonBody(request, contentType, config.MAX_BODY_BYTES))
    .onError(({ code, error, set, request }) => {
      const requestId = started.get(request)?.id ?? nextRequestId()
      const err = toAppError(code, error, log, requestId)
      set.status = err.status
      set.headers['x-request-id'] = requestId
      set.headers['content-type'] = 'application/json'
      if (err.headers) Object.assign(set.headers, err.headers)
      return errorBody(err, requestId)
    })
    .onAfterResponse(({ request, set, path }) => {
      const s = started.get(request)
      if (!s) return
      const status = typeof set.status === 'number' ? set.status : (StatusMap[set.status as keyof typeof StatusMap] ?? 200)
      logRequest(s.id, request.method, path, status, Math.round((performance.now() - s.at) * 100) / 100)
    })
    .use(openapiRoutes(() => self.app as AnyElysia))
    .get('/health', () => ({ status: 'ok' as const }), { detail: { summary: 'Liveness', tags: ['Health'] } })
    .get(
      '/ready',
      async () => {
        try {
          await sql`select 1`.execute(db)
        } catch {
          throw new AppError(503, 'not_ready', 'database is not reachable')
        }
        return { status: 'ready' as const }
      },
      { detail: { summary: 'Readiness: the database answers', tags: ['Health'] } },
    )
  for (const mount of features) app = app.use(mount(deps, auth)) as typeof app
  self.app = app
  return app
}

export type App = ReturnType<typeof buildApp>
