import { type AnyElysia, Elysia, StatusMap } from 'elysia'
import { sql } from 'kysely'
import { agentTestsController } from '../features/agent-tests/agent-tests.http.ts'
import type { AgentTestRunner } from '../features/agent-tests/index.ts'
import { agentTestRunsController } from '../features/agent-tests/runs.http.ts'
import { agentsController, voicePreviewController } from '../features/agents/agents.http.ts'
import { TOOLS, type UnreachableProvider } from '../features/agents/index.ts'
import { apiKeysController } from '../features/api-keys/api-keys.http.ts'
import { billingController } from '../features/billing/billing.http.ts'
import { analysisSettingsController, callActionsController, callsController, recordingLinkRoute, recordsController } from '../features/calls/calls.http.ts'
import { type CapacityFigures, type Dialer, type LiveCalls, recordsDeps, linkKeyFor } from '../features/calls/index.ts'
import { campaignsController } from '../features/campaigns/campaigns.http.ts'
import { noEvents, type CampaignEvents } from '../features/campaigns/index.ts'
import { carrierController } from '../features/carrier/carrier.http.ts'
import type { Config } from '../platform/config/index.ts'
import { consoleController } from '../features/console/console.http.ts'
import { type Db, kindOf, refusesNulText } from '../platform/db/index.ts'
import { doNotCallController } from '../features/do-not-call/do-not-call.http.ts'
import { knowledgeController } from '../features/knowledge/knowledge.http.ts'
import { type AppCallHost, AppCallSlots, WebCalls, webCallLimits } from '../features/web-calls/index.ts'
import { webCallsController } from '../features/web-calls/web-calls.http.ts'
import { MediaStreams } from '../features/web-calls/stream/media-streams.ts'
import { mediaStreamController } from '../features/web-calls/stream/media-stream.http.ts'
import { MAX_MESSAGE_BYTES } from '../features/web-calls/stream/protocol.ts'
import { AppError } from '../platform/errors.ts'
import { accessLog, type Logger } from '../platform/log.ts'
import { metricsController } from '../platform/metrics/metrics.http.ts'
import { type Metrics } from '../platform/metrics/index.ts'
import { type PublicBase, publicBaseOf } from '../platform/net/index.ts'
import { numbersController } from '../features/numbers/numbers.http.ts'
import { providersController } from '../features/providers/providers.http.ts'
import { secretBoxFor } from '../platform/secrets/index.ts'
import type { VoiceEngines } from '../realtime/voice/engines.ts'
import { webhooksController } from '../features/webhooks/webhooks.http.ts'
import { workflowsFeature } from '../features/workflows/workflows.http.ts'
import { agentTestHooks, agentWorkflowHooks, knowledgeAgentHooks, numberAgentReadiness, workflowAgentHooks } from '../features/wiring.ts'
import { workspacesController } from '../features/workspaces/workspaces.http.ts'
import { type AuthPlugin, createAuth, type Authenticate } from './auth.ts'
import { bodyLimitFor, checkContentLength, isJobUpload, knowledgeUploadLimit, readJsonBody } from './body.ts'
import { errorBody, toAppError } from './errors.ts'
import { declaredFields, type FieldsSeen } from './fields.ts'
import { openapiRoutes } from './openapi.ts'
import { RateLimiter } from './rate-limit.ts'
import { recordingStorageFor } from '../features/recordings/index.ts'

export interface AppDeps {
  db: Db
  config: Config
  log: Logger
  authenticate: Authenticate
  /** Places outbound calls; absent when the telephony side is not running. */
  dialer?: Dialer
  /** Prometheus instruments; GET /metrics is served when present. */
  metrics?: Metrics
  /** For `/ready`: still loading engines, and what fell back or failed; absent when the voice side is not running. */
  readiness?: () => { starting: boolean; problems: string[]; warnings?: string[] }
  /** Configured providers the latest probe could not reach (agent and number readiness). */
  unreachableProviders?: () => UnreachableProvider[]
  /** Nudges background workers when the API made work due (absent: they find it at their next poll). */
  background?: { wakeAnalysis(): void; wakeWebhooks(): void }
  /** The campaign dispatcher's wake-up and where campaign events go; absent: jobs wait for the next start. */
  campaigns?: { events: CampaignEvents; poke(): void; now?: () => number }
  /** The speech engines once loaded (voice previews); absent or undefined: previews answer 503. */
  voices?: () => VoiceEngines | undefined
  /** Where links to this appliance point (net/public-url.ts); absent: publicHttpBase of config and this app's port. */
  publicBase?: PublicBase
  /** Starts web and media-stream calls and finds live calls (supervisor actions); absent or undefined while the call runtime is not running (503; actions 409). */
  appCalls?: () => (AppCallHost & LiveCalls) | undefined
  /** Capacity, calls up and headroom of this node (`/ready`); absent or undefined while calls are not running. */
  capacity?: () => CapacityFigures | undefined
  /** Runs agent test cases over the test phone; absent or undefined while telephony is not running (503). */
  agentTests?: () => AgentTestRunner | undefined
}

/** AppDeps as the features get them: publicBase always there. */
export type FeatureDeps = AppDeps & { publicBase: PublicBase }

export type FeatureMount = (deps: FeatureDeps, auth: AuthPlugin) => Elysia<any, any, any, any, any, any, any>

/** Feature controllers, mounted in this order. New capabilities add themselves here. */
export const FEATURES: FeatureMount[] = [
  ({ db, appCalls }, auth) => workspacesController(db, auth, (id) => appCalls?.()?.callsUp(id) ?? 0),
  ({ db }, auth) => apiKeysController(db, auth),
  ({ config }, auth) => providersController(auth, config, [...TOOLS.values()]),
  ({ db, config, unreachableProviders }, auth) => agentsController(db, config, auth, undefined, agentWorkflowHooks(db, config), unreachableProviders),
  ({ db, voices, config }, auth) =>
    voicePreviewController(db, auth, () => voices?.(), { concurrency: config.VOICE_PREVIEW_CONCURRENCY, perMin: config.VOICE_PREVIEW_PER_MIN }),
  ({ db, config }, auth) => billingController(db, config, auth),
  ({ db, config }, auth) => carrierController(db, config, auth),
  ({ db, config, unreachableProviders, publicBase }, auth) => numbersController(db, config, publicBase, auth, numberAgentReadiness(db, config, unreachableProviders)),
  (deps, auth) => workflowsFeature(deps, auth, workflowAgentHooks(deps.db)),
  ({ db }, auth) => agentTestsController(db, auth, agentTestHooks(db)),
  ({ db, agentTests }, auth) => agentTestRunsController(db, auth, () => agentTests?.()),
  (deps, auth) => callsController({ db: deps.db, box: secretBoxFor(deps.config.DATA_DIR), config: deps.config, dialer: deps.dialer }, deps.publicBase, auth),
  ({ db, config, background, publicBase }, auth) => recordsController(db, () => recordsDeps(db, config, publicBase()), auth, () => background?.wakeAnalysis()),
  ({ db }, auth) => analysisSettingsController(db, auth),
  ({ db, config, appCalls }, auth) => callActionsController({ db, nodeId: config.NODE_ID, calls: () => appCalls?.() }, auth),
  ({ db, config }) => recordingLinkRoute(db, linkKeyFor(config.DATA_DIR), recordingStorageFor(config)),
  ({ db, config, background }, auth) => webhooksController({ db, box: secretBoxFor(config.DATA_DIR), wake: () => background?.wakeWebhooks() }, auth),
  (deps, auth) =>
    campaignsController(
      {
        db: deps.db,
        box: secretBoxFor(deps.config.DATA_DIR),
        events: deps.campaigns?.events ?? noEvents,
        poke: () => deps.campaigns?.poke(),
        maxUploadBytes: deps.config.OUTBOUND_JOB_MAX_BODY_BYTES,
        log: deps.log.child({ component: 'campaigns' }),
        now: deps.campaigns?.now ?? Date.now,
      },
      auth,
    ),
  ({ db }, auth) => doNotCallController(db, auth),
  ({ db, config }, auth) => knowledgeController(db, config, auth, knowledgeAgentHooks),
  (deps, auth) => webCallsController(new WebCalls({ db: deps.db, log: deps.log.child({ component: 'web-calls' }), host: () => deps.appCalls?.(), slots: appCallSlots(deps), ...webCallLimits(deps.config) }), auth),
  (deps, auth) => mediaStreamController(new MediaStreams({ db: deps.db, log: deps.log.child({ component: 'media-stream' }), host: () => deps.appCalls?.(), slots: appCallSlots(deps) }), auth),
  () => consoleController(),
]

// One WEB_CALLS_MAX count per built app, shared by the web-call and media-stream routes.
const slotsOfApp = new WeakMap<FeatureDeps, AppCallSlots>()
function appCallSlots(deps: FeatureDeps): AppCallSlots {
  let slots = slotsOfApp.get(deps)
  if (!slots) slotsOfApp.set(deps, (slots = new AppCallSlots(deps.config.WEB_CALLS_MAX, deps.config.WEB_CALLS_SHARE, (reason, kind) => deps.metrics?.callRefused(kind, reason))))
  return slots
}

const REQUEST_ID = /^[A-Za-z0-9._-]{1,64}$/

// Request ids are a random per-process prefix and a counter: unique, and cheap on the hot path.
const requestIdPrefix = `req_${crypto.randomUUID().slice(0, 8)}`
let requestCounter = 0
const nextRequestId = () => `${requestIdPrefix}_${(++requestCounter).toString(36)}`

// Set on Elysia's per-request context by onRequest and read back by onError and
// onAfterResponse: the same object travels through every hook of one request.
interface Timed {
  requestId?: string
  startedAt?: number
}

/** The answer when handling a request failed outside Elysia's hooks (a bug). */
function lastResort(error: unknown, log: Logger): Response {
  const requestId = nextRequestId()
  log.error({ err: error, requestId }, 'unhandled error outside the request hooks')
  return Response.json(errorBody(new AppError(500, 'internal', 'internal error'), requestId), { status: 500, headers: { 'x-request-id': requestId } })
}

export function buildApp(deps: AppDeps, features: FeatureMount[] = FEATURES) {
  const { config, log, db } = deps
  const logRequest = accessLog(log)
  const failures = new RateLimiter(config.AUTH_FAILURE_BURST > 0 ? config.AUTH_FAILURES_PER_MIN / 60 : 0, config.AUTH_FAILURE_BURST)
  const auth = createAuth(deps.authenticate, new RateLimiter(config.RATE_LIMIT_PER_SEC, config.RATE_LIMIT_BURST), failures)

  // PostgreSQL cannot hold U+0000 in text (SQLite can): refused up front, before a streamed answer began
  const refuseNul = refusesNulText(db)
  const self: { app?: AnyElysia } = {}
  const fields = declaredFields(() => self.app as AnyElysia)
  let app = new Elysia({
    serve: {
      // a backstop only: bodies are streamed, and refused by our own limits with an error body
      // (413 naming the limit) up to this size; beyond it Bun answers 413 itself, with no body
      maxRequestBodySize: Math.max(config.MAX_BODY_BYTES, config.OUTBOUND_JOB_MAX_BODY_BYTES, knowledgeUploadLimit(config)) + 64 * 1_048_576,
      // Bun's development mode answers a failure of our own error hook with a page showing the
      // stack; this answers it with the error body instead.
      development: false,
      error: (error) => lastResort(error, log),
    },
    // Bun checks this against a frame's announced length before buffering it (1009); a check in
    // the handler would come after Bun had read up to 16 MiB of every frame
    websocket: { maxPayloadLength: MAX_MESSAGE_BYTES },
  })
    .onRequest((ctx) => {
      const given = ctx.request.headers.get('x-request-id')
      const id = given && REQUEST_ID.test(given) ? given : nextRequestId()
      ;(ctx as Timed).requestId = id
      ;(ctx as Timed).startedAt = performance.now()
      ctx.set.headers['x-request-id'] = id
      checkContentLength(ctx.request, bodyLimitFor(ctx.request, config))
      if (refuseNul && ctx.request.url.includes('%00')) throw new AppError(400, 'bad_request', 'the URL must not contain NUL (%00) characters')
    })
    .onParse(async (ctx) => {
      const { request, contentType, route } = ctx
      // a campaign's upload is read by its route once the caller is known (campaigns/upload)
      if (isJobUpload(request)) return {}
      const body = await readJsonBody(request, contentType, bodyLimitFor(request, config))
      const undeclared = fields.inBody(request.method, route, body)
      if (undeclared) (ctx as FieldsSeen).undeclared = undeclared
      return body
    })
    .onBeforeHandle((ctx) => fields.refuse((ctx as FieldsSeen).undeclared, ctx.request, ctx.route))
    .onError((ctx) => {
      const { code, error, set } = ctx
      const requestId = (ctx as Timed).requestId ?? nextRequestId()
      const err = fields.withUndeclared(toAppError(code, error, log, requestId), (ctx as FieldsSeen).undeclared, ctx.request, (ctx as { route?: string }).route)
      set.status = err.status
      set.headers['x-request-id'] = requestId
      set.headers['content-type'] = 'application/json'
      if (err.headers) Object.assign(set.headers, err.headers)
      return errorBody(err, requestId)
    })
    .onAfterResponse((ctx) => {
      const { requestId, startedAt } = ctx as Timed
      if (requestId === undefined || startedAt === undefined) return
      const { set } = ctx
      const status = typeof set.status === 'number' ? set.status : (StatusMap[set.status as keyof typeof StatusMap] ?? 200)
      const ms = Math.round((performance.now() - startedAt) * 100) / 100
      logRequest(requestId, ctx.request.method, ctx.path, status, ms)
      deps.metrics?.http(ctx.request.method, (ctx as { route?: string }).route || 'unmatched', status, ms)
    })
    .use(openapiRoutes(() => self.app as AnyElysia))
    // 302, not 308: browsers keep a permanent redirect for good, and / may serve something else one day
    .get('/', ({ redirect }) => redirect('/console', 302), { detail: { hide: true } })
    .get('/health', () => ({ status: 'ok' as const }), { detail: { summary: 'Liveness', tags: ['Health'] } })
    .get(
      '/ready',
      async () => {
        try {
          await sql`select 1`.execute(db)
        } catch {
          throw new AppError(503, 'not_ready', 'database is not reachable')
        }
        const { starting, problems, warnings = [] } = deps.readiness?.() ?? { starting: false, problems: [] }
        if (starting) throw new AppError(503, 'not_ready', 'the appliance is loading its engines; calls are not taken yet')
        const node = { nodeId: config.NODE_ID, database: kindOf(db), ...capacityOf(deps.capacity?.()), ...(warnings.length ? { warnings } : {}) }
        return problems.length ? { status: 'degraded' as const, problems, ...node } : { status: 'ready' as const, ...node }
      },
      {
        detail: {
          summary: 'Readiness',
          description:
            '503 while the appliance is starting (HTTP answers before the speech engines are loaded) or when the database does not answer. 200 with status "ready", or "degraded" with the reasons when a configured engine fell back (e.g. the energy VAD instead of Silero) or stopped working (e.g. the TTS worker), or a configured LLM, STT or TTS provider cannot be reached (probed every PROVIDER_PROBE_MS; named with its URL, never its key): calls are still taken, worse. warnings (present only when there are some) are settings that work here but not for peers on other machines, e.g. a loopback PUBLIC_HOST while SIP listens beyond it, and the models calls may run here that have no price (calls name them in cost.unpriced). Both name this node (nodeId, its NODE_ID) and its database kind (sqlite or postgres), for load balancers and operators of several nodes, and once calls run, capacity: calls this node carries (null: no ceiling), callsUp, headroom (calls it takes now; null: no ceiling) and limitedBy (what stops it taking more: CALLS_MAX, event_loop_lag, cpu, media_send_lateness) — see docs/operations.md.',
          tags: ['Health'],
        },
      },
    )
  if (deps.metrics) app = app.use(metricsController(deps.metrics, config.METRICS_TOKEN)) as unknown as typeof app
  const featureDeps: FeatureDeps = { ...deps, publicBase: deps.publicBase ?? publicBaseOf(config, () => self.app?.server) }
  for (const mount of features) app = app.use(mount(featureDeps, auth)) as typeof app
  self.app = app
  return app
}

/** Capacity figures as JSON: no ceiling (Infinity) is null. */
function capacityOf(f: CapacityFigures | undefined) {
  if (!f) return {}
  const n = (v: number) => (Number.isFinite(v) ? v : null)
  return { capacity: { capacity: n(f.capacity), callsUp: f.callsUp, headroom: n(Math.max(0, f.headroom)), ...(f.limitedBy ? { limitedBy: f.limitedBy } : {}) } }
}

export type App = ReturnType<typeof buildApp>
