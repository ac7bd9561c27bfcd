import { randomBytes } from 'node:crypto'
import { writeFileSync } from 'node:fs'
import { hostname } from 'node:os'
import { join } from 'node:path'
import { authenticate, invalidatePrincipals, PrincipalCache } from './api-keys/index.ts'
import { AnalysisWorker, type CallPlacer, callPlacer, CallRefused, CallRuntime, closeAbandonedCalls, DbNumberDirectory, type Dialer, exportCallById, recordsDeps, RetentionSweeper, uploadedCalls } from './calls/index.ts'
import { amdGateFactory, type CampaignEvents, contactOfCall, Dispatcher, outboxEvents } from './campaigns/index.ts'
import type { Config } from './config.ts'
import { secureDataDir } from './data-dir.ts'
import { ChangeListener, type DbHandle, describeDatabase, lockDataDir, migrateToLatest, notifyChange, openConfigured, setChangeOrigin, sharedByNodes } from './db/index.ts'
import { buildApp, type App } from './http/app.ts'
import { createLogger, type Logger } from './log.ts'
import { NodePresence } from './jobs/index.ts'
import { MediaEngine } from './media/index.ts'
import { parseNetworks, publicBaseOf } from './net/index.ts'
import { RecordingUploader, recordingStorageFor } from './recordings/index.ts'
import { Metrics, sipObserver } from './metrics/index.ts'
import { TrunkRegistrations } from './numbers/index.ts'
import { secretBoxFor } from './secrets/index.ts'
import { userAgentFromConfig, type UserAgent } from './telephony/sip/index.ts'
import { createVoiceEngines } from './voice/index.ts'
import { parseSchedule, WebhookWorker } from './webhooks/index.ts'
import { workflowLlm } from './voice/registry/index.ts'
import { bootstrapIfEmpty, forgetWorkspace } from './workspaces/index.ts'
import { adoptPublicHost, checkPortsFree, describeFailure, portErrorOf, ProviderProbes, probeTargets } from './startup/index.ts'

export interface Appliance {
  config: Config
  log: Logger
  database: DbHandle
  app: App
  calls: CallRuntime
  /** Where calls run: this thread (CALL_WORKERS=0) or the call workers. */
  callPlacer: CallPlacer
  registrations: TrunkRegistrations
  metrics: Metrics
  campaigns: Dispatcher
  /** The SIP ports actually bound (SIP_PORT 0 picks free ones). */
  sip: { udp?: number; tcp?: number; tls?: number }
  /** Base URL of the HTTP API, e.g. http://127.0.0.1:3000 */
  url: string
  stop(): Promise<void>
}

/**
 * The composition root: lock DATA_DIR, open and migrate the database, bootstrap an empty
 * install, start the media engine, the voice engines and the SIP user agent, then build the
 * HTTP app and listen. Stop runs in reverse: HTTP first, then calls drain (new INVITEs get 503).
 */
export async function startAppliance(
  config: Config,
  log: Logger = createLogger(config.LOG_LEVEL),
  opts: { campaignEvents?: CampaignEvents; campaignClock?: () => number } = {},
): Promise<Appliance> {
  // a port in use stops the start here, before anything listens (exit code 2, naming its key)
  const ports = await checkPortsFree(config)
  const warnings = await adoptPublicHost(config, log)
  // nodes sharing a database (PostgreSQL) coordinate through presence, leases and change notifications
  const shared = sharedByNodes(config)
  config.NODE_ID ||= shared ? `${hostname()}-${randomBytes(3).toString('hex')}` : hostname()
  secureDataDir(config.DATA_DIR, { sqlite: !shared })
  // one process per SQLite file; PostgreSQL nodes share the database and coordinate through leases
  const lock = shared ? { release() {} } : lockDataDir(config.DATA_DIR)
  let database: DbHandle | undefined
  let ua: UserAgent | undefined
  let media: MediaEngine | undefined
  let app: App | undefined
  let metrics: Metrics | undefined
  let changes: ChangeListener | undefined
  let presence: NodePresence | undefined
  let placer: CallPlacer | undefined
  let voiceEngines: Awaited<ReturnType<typeof createVoiceEngines>> | undefined
  const probes = new ProviderProbes(probeTargets(config), { intervalMs: config.PROVIDER_PROBE_MS, timeoutMs: 5000, log: log.child({ component: 'probes' }) })
  try {
    database = openConfigured(config)
    log.info({ nodeId: config.NODE_ID, database: describeDatabase(config) }, 'node starting')
    const applied = await migrateToLatest(database.db)
    if (applied.length) log.info({ migrations: applied }, 'database migrated')
    const boot = await bootstrapIfEmpty(database.db)
    if (boot) {
      const file = join(config.DATA_DIR, 'admin-api-key')
      writeFileSync(file, `${boot.key}\n`, { mode: 0o600 })
      // Logged once, on the very first start, so the operator can find it; never again.
      log.warn(
        { workspaceId: boot.workspace.id, adminEmail: boot.adminEmail, adminApiKey: boot.key, file },
        'first start: created workspace "Default" and an admin API key',
      )
    }
    const db = database.db
    if (shared) {
      // closes the calls of nodes lost meanwhile, after each renewal of this node's own presence
      presence = new NodePresence(db, config.NODE_ID, config.NODE_LEASE_MS, log, async () => {
        const lost = await closeAbandonedCalls(db, new Date(), { id: config.NODE_ID, ownToo: false })
        if (lost > 0) log.warn({ calls: lost }, 'calls of a lost node were closed as failed')
      })
      await presence.start()
    }
    const abandoned = await closeAbandonedCalls(db, new Date(), shared ? { id: config.NODE_ID, ownToo: true } : undefined)
    if (abandoned > 0) log.warn({ calls: abandoned }, 'calls left unfinished by the last run were closed as failed')

    // HTTP answers (/health, the API) while the speech engines load; /ready says 503 until calls are taken
    let started: CallRuntime | undefined
    let voiceProblems = (): string[] => []
    const dialer: Dialer = {
      dial: (call) => (started ? started.dial(call) : Promise.reject(new CallRefused('the appliance is still starting', 5))),
    }
    // the analysis worker and the campaign dispatcher need the speech engines and calls: made once those are loaded
    let analysis: AnalysisWorker | undefined
    let campaigns: Dispatcher | undefined
    const principals = new PrincipalCache(config.AUTH_CACHE_MS)
    if (shared) {
      setChangeOrigin(config.NODE_ID)
      changes = new ChangeListener(config.DATABASE_URL, {
        onChange: (c) => {
          if (c.topic === 'workspace') forgetWorkspace(db, c.id)
          else if (c.topic === 'campaigns') campaigns?.poke()
          else void invalidatePrincipals()
        },
        onReset: () => {
          forgetWorkspace(db, undefined)
          void invalidatePrincipals()
        },
        onError: (err) => log.warn({ err: err.message }, 'cache invalidation listener lost its connection; reconnecting (caches expire meanwhile)'),
      })
      await changes.start()
    }
    const readiness = () => ({ starting: !started, problems: [...voiceProblems(), ...probes.problems()], warnings })
    const unreachableProviders = () => probes.down.map((f) => ({ kind: f.kind, provider: f.provider, message: describeFailure(f) }))
    metrics = new Metrics({ liveCalls: () => started?.activeCalls ?? 0, enginesLoaded: () => voiceEngines?.loaded() ?? {} })
    metrics.start()
    const campaignEvents = opts.campaignEvents ?? outboxEvents
    const publicBase = publicBaseOf(config, () => app?.server)
    const webhooks = new WebhookWorker({
      db,
      box: secretBoxFor(config.DATA_DIR),
      log: log.child({ component: 'webhooks' }),
      policy: { allowHttp: config.WEBHOOK_ALLOW_HTTP, allowPrivate: config.WEBHOOK_ALLOW_PRIVATE, allowNetworks: parseNetworks(config.WEBHOOK_ALLOW_NETWORKS) },
      schedule: parseSchedule(config.WEBHOOK_RETRY_SCHEDULE),
      concurrency: config.WEBHOOK_CONCURRENCY,
      pollMs: config.BACKGROUND_POLL_MS,
      leaseMs: config.WEBHOOK_LEASE_MS,
      render: async (row) => {
        if (!row.call_id) return null
        const doc = await exportCallById(recordsDeps(db, config, publicBase()), row.call_id)
        const contact = doc && (await contactOfCall(db, row.call_id))
        return contact ? { ...doc, contact } : doc
      },
    })
    const recordings = recordingStorageFor(config)
    const retention = new RetentionSweeper(
      db,
      { recordingDays: config.RECORDING_RETENTION_DAYS, callDays: config.CALL_RETENTION_DAYS, recordingsDir: join(config.DATA_DIR, 'recordings') },
      log.child({ component: 'retention' }),
      recordings,
    )
    app = buildApp({
      db,
      config,
      log,
      dialer,
      readiness,
      unreachableProviders,
      metrics,
      authenticate: (token, now) => authenticate(db, token, now, principals),
      background: { wakeAnalysis: () => analysis?.wake(), wakeWebhooks: () => webhooks.wake() },
      campaigns: {
        events: campaignEvents,
        poke: () => {
          campaigns?.poke()
          // the other nodes' dispatchers take part too
          if (shared) notifyChange(db, 'campaigns').catch((err) => log.warn({ err }, 'could not tell the other nodes about campaign work'))
        },
      },
      voices: () => voiceEngines,
      publicBase,
    })
    // Elysia asks Bun for SO_REUSEPORT unless told not to: a second appliance would share the port
    try {
      app.listen({ hostname: config.HTTP_HOST, port: config.HTTP_PORT, reusePort: false })
    } catch (err) {
      throw portErrorOf(err, 'HTTP_PORT', config.HTTP_PORT, config.HTTP_HOST, 'TCP')
    }
    const server = app.server
    if (!server) throw new Error('HTTP server did not start')
    const host = config.HTTP_HOST === '0.0.0.0' ? '127.0.0.1' : config.HTTP_HOST
    const url = `http://${host}:${server.port}`
    log.info({ url }, 'HTTP listening')

    media = new MediaEngine(config, { bindHost: config.SIP_HOST })
    const { repaired } = await media.start()
    if (repaired.length) log.warn({ recordings: repaired }, 'recordings left open by the last run were repaired')
    const uploader = new RecordingUploader(uploadedCalls(db), recordings, media.recordingsDir, log.child({ component: 'recordings' }))
    const leftover = await uploader.start()
    if (leftover) log.info({ recordings: leftover }, 'recordings left on disk by the last run are being uploaded')
    probes.start()
    const voice = await createVoiceEngines(config)
    voiceProblems = voice.problems
    voiceEngines = voice
    log.info({ engines: voice.notes }, 'voice engines ready')
    const directory = new DbNumberDirectory(db, secretBoxFor(config.DATA_DIR), {
      carrierSources: config.CARRIER_SIP_SOURCES.split(',').map((s) => s.trim()).filter(Boolean),
    })
    ua = userAgentFromConfig(config, directory, sipLog(log), sipObserver(metrics), (transport, reason) => metrics?.sipConnectionRefused(transport, reason), (reason) => metrics?.sipRequestRefused(reason))
    const sip = await ua.start().catch((err) => {
      const tls = (err as { port?: number }).port === config.SIP_TLS_PORT && config.SIP_TLS_PORT !== config.SIP_PORT
      throw tls ? portErrorOf(err, 'SIP_TLS_PORT', config.SIP_TLS_PORT, config.SIP_HOST, 'TCP') : portErrorOf(err, 'SIP_PORT', config.SIP_PORT, config.SIP_HOST, 'UDP/TCP')
    })
    if (ports.rtpPairsTaken > 0) log.warn({ taken: ports.rtpPairsTaken, pairs: ports.rtpPairs }, 'some RTP port pairs of RTP_PORT_MIN-RTP_PORT_MAX are held by another program; calls use the others')
    const engine = media
    const conversations = { media, voice, lines: config, workflowLlm: workflowLlm(config), maxVisits: config.WORKFLOW_MAX_VISITS, allowPrivateTools: config.TOOLS_ALLOW_PRIVATE, log }
    placer = callPlacer(config, conversations, metrics, log)
    const calls = new CallRuntime({
      db, log, config, ua, placer, metrics,
      prices: voice.settings.prices,
      sdpOptions: (address, port) => engine.sdpOptions(address, { port }),
      recorded: (id, path) => uploader.finished(id, path),
      holdEngines: () => voice.hold('threads'),
    })
    log.info({ sip }, 'SIP listening')
    const registrations = new TrunkRegistrations(db, secretBoxFor(config.DATA_DIR), ua, log, {
      syncMs: config.SIP_REGISTER_SYNC_MS,
      expiresSec: config.SIP_REGISTER_EXPIRES_SEC,
      owner: config.NODE_ID,
      leaseMs: config.NODE_LEASE_MS,
    })
    await registrations.start()

    analysis = new AnalysisWorker({
      db,
      log: log.child({ component: 'analysis' }),
      llm: voice.llm,
      prices: voice.settings.prices,
      pollMs: config.BACKGROUND_POLL_MS,
      onReleased: () => webhooks.wake(),
    })
    campaigns = new Dispatcher({
      db,
      box: secretBoxFor(config.DATA_DIR),
      dialer: calls,
      events: campaignEvents,
      log: log.child({ component: 'campaigns' }),
      owner: config.NODE_ID,
      leaseMs: config.CAMPAIGN_LEASE_MS,
      idleRecheckMs: shared ? 10_000 : undefined,
      maxCalls: config.OUTBOUND_MAX_CALLS,
      answerGate: amdGateFactory(db, voice),
      now: opts.campaignClock,
    })
    analysis.start()
    webhooks.start()
    retention.start()
    await campaigns.start()
    started = calls
    log.info({ url, dataDir: config.DATA_DIR }, 'appliance started')
    const handle = database
    const mediaEngine = media
    const httpApp = app
    const probe = metrics
    const analysisWorker = analysis
    const dispatcher = campaigns
    const callPlacement = placer
    return {
      config,
      log,
      database: handle,
      metrics: probe,
      calls,
      callPlacer: callPlacement,
      registrations,
      campaigns: dispatcher,
      sip,
      url,
      app,
      async stop() {
        // SIP refuses new calls (503) from this moment, while the API closes and calls drain
        dispatcher.stop()
        probes.stop()
        const callsStopped = calls.stop(config.CALL_DRAIN_MS)
        await registrations.stop()
        await httpApp.stop()
        await callsStopped
        // calls that ended while draining have written their analysis and webhook rows by now
        await dispatcher.settled()
        await Promise.all([analysisWorker.stop(), webhooks.stop(), retention.stop(), uploader.stop()])
        await callPlacement.stop()
        await mediaEngine.stop()
        await voice.close()
        probe.stop()
        await changes?.stop()
        await presence?.stop()
        await handle.close()
        lock.release()
        log.info('appliance stopped')
      },
    }
  } catch (err) {
    probes.stop()
    metrics?.stop()
    await changes?.stop()
    await presence?.stop()
    await app?.stop().catch(() => {})
    await ua?.stop().catch(() => {})
    await placer?.stop().catch(() => {})
    await media?.stop().catch(() => {})
    await voiceEngines?.close()
    await database?.close().catch(() => {})
    lock.release()
    throw err
  }
}

/** The SIP layer logs through a two-method interface; its records are tagged. */
function sipLog(log: Logger) {
  const child = log.child({ component: 'sip' })
  return { debug: (o: object, m?: string) => child.debug(o, m), info: (o: object, m?: string) => child.info(o, m), warn: (o: object, m?: string) => child.warn(o, m) }
}
