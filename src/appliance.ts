import { mkdirSync, writeFileSync } from 'node:fs'
import { hostname } from 'node:os'
import { join } from 'node:path'
import { authenticate, PrincipalCache } from './api-keys/index.ts'
import { CallRuntime, closeAbandonedCalls, DbNumberDirectory, TrunkRegistrations } from './calls/index.ts'
import { amdGateFactory, Dispatcher, noEvents, type CampaignEvents } from './campaigns/index.ts'
import type { Config } from './config.ts'
import { type DbHandle, lockDataDir, migrateToLatest, openDatabase } from './db/index.ts'
import { buildApp, type App } from './http/app.ts'
import { nowIso } from './ids.ts'
import { createLogger, type Logger } from './log.ts'
import { MediaEngine } from './media/index.ts'
import { secretBoxFor } from './secrets/index.ts'
import { userAgentFromConfig, type UserAgent } from './telephony/sip/index.ts'
import { createVoiceEngines } from './voice/index.ts'
import { workflowLlmFromConfig } from './workflows/index.ts'
import { bootstrapIfEmpty } from './workspaces/index.ts'

export interface Appliance {
  config: Config
  log: Logger
  database: DbHandle
  app: App
  calls: CallRuntime
  registrations: TrunkRegistrations
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
  mkdirSync(config.DATA_DIR, { recursive: true })
  const lock = lockDataDir(config.DATA_DIR)
  let database: DbHandle | undefined
  let ua: UserAgent | undefined
  let media: MediaEngine | undefined
  try {
    database = openDatabase(join(config.DATA_DIR, 'appliance.db'))
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
    const abandoned = await closeAbandonedCalls(db, nowIso())
    if (abandoned.numUpdatedRows > 0n) log.warn({ calls: Number(abandoned.numUpdatedRows) }, 'calls left unfinished by the last run were closed as failed')

    media = new MediaEngine(config, { bindHost: config.SIP_HOST })
    const { repaired } = await media.start()
    if (repaired.length) log.warn({ recordings: repaired }, 'recordings left open by the last run were repaired')
    const voice = await createVoiceEngines(config)
    log.info({ engines: voice.notes }, 'voice engines ready')
    const directory = new DbNumberDirectory(db, secretBoxFor(config.DATA_DIR), {
      carrierSources: config.CARRIER_SIP_SOURCES.split(',').map((s) => s.trim()).filter(Boolean),
    })
    ua = userAgentFromConfig(config, directory, sipLog(log))
    const sip = await ua.start()
    const calls = new CallRuntime({ db, log, config, ua, media, voice, workflowLlm: workflowLlmFromConfig(config) })
    log.info({ sip }, 'SIP listening')
    const registrations = new TrunkRegistrations(db, secretBoxFor(config.DATA_DIR), ua, log, {
      syncMs: config.SIP_REGISTER_SYNC_MS,
      expiresSec: config.SIP_REGISTER_EXPIRES_SEC,
    })
    await registrations.start()

    const events = opts.campaignEvents ?? noEvents
    const campaigns = new Dispatcher({
      db,
      box: secretBoxFor(config.DATA_DIR),
      dialer: calls,
      events,
      log: log.child({ component: 'campaigns' }),
      owner: config.NODE_ID || hostname(),
      maxCalls: config.OUTBOUND_MAX_CALLS,
      answerGate: amdGateFactory(db, voice),
      now: opts.campaignClock,
    })
    const principals = new PrincipalCache(config.AUTH_CACHE_MS)
    const app = buildApp({
      db, config, log, dialer: calls, campaigns: { events, poke: () => campaigns.poke() },
      authenticate: (token, now) => authenticate(db, token, now, principals),
    })
    app.listen({ hostname: config.HTTP_HOST, port: config.HTTP_PORT })
    const server = app.server
    if (!server) throw new Error('HTTP server did not start')
    const host = config.HTTP_HOST === '0.0.0.0' ? '127.0.0.1' : config.HTTP_HOST
    const url = `http://${host}:${server.port}`
    await campaigns.start()
    log.info({ url, dataDir: config.DATA_DIR }, 'appliance started')
    const handle = database
    const mediaEngine = media
    return {
      config,
      log,
      database: handle,
      app,
      calls,
      registrations,
      campaigns,
      sip,
      url,
      async stop() {
        // SIP refuses new calls (503) from this moment, while the API closes and calls drain
        campaigns.stop()
        const callsStopped = calls.stop(config.CALL_DRAIN_MS)
        await registrations.stop()
        await app.stop()
        await callsStopped
        await campaigns.settled()
        await mediaEngine.stop()
        await handle.close()
        lock.release()
        log.info('appliance stopped')
      },
    }
  } catch (err) {
    await ua?.stop().catch(() => {})
    await media?.stop().catch(() => {})
    await database?.close().catch(() => {})
    lock.release()
    throw err
  }
}

/** The SIP layer logs through a two-method interface; its records are tagged. */
function sipLog(log: Logger) {
  const child = log.child({ component: 'sip' })
  return { debug: (o: object, m?: string) => child.debug(o, m), warn: (o: object, m?: string) => child.warn(o, m) }
}
