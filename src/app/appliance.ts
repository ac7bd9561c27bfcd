import { authenticate, PrincipalCache } from '../features/api-keys/index.ts'
import * as background from './background/index.ts'
import type { AgentTestRunner } from '../features/agent-tests/index.ts'
import { type CallPlacer, CallRefused, type CallRuntime, type CapacityModel, type Dialer, TestLines } from '../features/calls/index.ts'
import * as callWorkers from '../features/calls/workers/index.ts'
import { type CampaignEvents, type Dispatcher, outboxEvents } from '../features/campaigns/index.ts'
import * as cluster from './cluster/index.ts'
import type { Config } from '../platform/config/index.ts'
import { secureDataDir } from '../platform/data-dir.ts'
import { type DbHandle, lockDataDir } from '../platform/db/index.ts'
import type { App } from '../http/app.ts'
import * as http from './http.ts'
import { createLogger, type Logger } from '../platform/log.ts'
import { Metrics } from '../platform/metrics/index.ts'
import type { TrunkRegistrations } from '../features/numbers/index.ts'
import { recordingStorageFor } from '../features/recordings/index.ts'
import { checkPortsFree, describeFailure, prepareDatabase, ProviderProbes, probeTargets, settleConfig, startInOrder, warnUnpriced } from './startup/index.ts'
import * as telephony from './telephony.ts'
import { createVoiceEngines, type VoiceEngines } from '../realtime/voice/index.ts'
import { priceTableFor } from '../realtime/voice/registry/index.ts'

export interface Appliance {
  /** As settled at start (PUBLIC_HOST, NODE_ID) and frozen. */
  config: Readonly<Config>
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
 * The composition root: settle and freeze the config, lock DATA_DIR, open the database, join the cluster, listen on HTTP (which
 * answers while the speech engines load), start media, voice, call workers, SIP and the background
 * jobs, each once the ones before it run. Stop runs in reverse; see each subsystem's stop.
 */
export async function startAppliance(
  loaded: Config,
  log: Logger = createLogger(loaded.LOG_LEVEL),
  opts: { campaignEvents?: CampaignEvents; campaignClock?: () => number; capacity?: CapacityModel } = {},
): Promise<Appliance> {
  // a port in use stops the start here, before anything listens (exit code 2, naming its key)
  const ports = await checkPortsFree(loaded)
  const prices = priceTableFor(loaded)
  const { config, shared, warnings } = await settleConfig(loaded, log)
  secureDataDir(config.DATA_DIR, { sqlite: !shared })
  const probes = new ProviderProbes(probeTargets(config), { intervalMs: config.PROVIDER_PROBE_MS, timeoutMs: 5000, log: log.child({ component: 'probes' }) })
  const storage = recordingStorageFor(config)
  const principals = new PrincipalCache(config.AUTH_CACHE_MS)
  const campaignEvents = opts.campaignEvents ?? outboxEvents
  // filled in as the subsystems start; the earlier ones reach the later ones through it
  const s: { database?: DbHandle; metrics?: Metrics; http?: http.RunningHttp; media?: telephony.RunningMedia; voice?: VoiceEngines; placer?: CallPlacer; sip?: telephony.RunningTelephony; jobs?: background.RunningBackground; tests?: AgentTestRunner } = {}
  const testLines = new TestLines()
  const dialer: Dialer = { dial: (call) => (s.jobs && s.sip ? s.sip.calls.dial(call) : Promise.reject(new CallRefused('starting', 'the appliance is still starting'))) }
  const pokeCampaigns = () => s.jobs?.campaigns.poke()
  const running = await startInOrder([
    // one process per SQLite file; PostgreSQL nodes share the database and coordinate through leases
    () => (shared ? { stop() {} } : { stop: lockDataDir(config.DATA_DIR).release }),
    async () => {
      const database = (s.database = await prepareDatabase(config, log))
      return { stop: () => database.close() }
    },
    () => cluster.start({ config, db: s.database!.db, log, shared, pokeCampaigns }),
    () => {
      s.metrics = new Metrics({ liveCalls: () => (s.jobs && s.sip?.calls.activeCalls) || 0, enginesLoaded: () => s.voice?.loaded() ?? {}, capacity: () => (s.jobs ? s.sip?.calls.capacityNow() : undefined) })
      s.metrics.start()
      return s.metrics
    },
    async () => {
      const db = s.database!.db
      return (s.http = await http.start({
        db, config, log, dialer, metrics: s.metrics,
        readiness: () => ({ starting: !s.jobs, problems: [...(s.voice?.problems() ?? []), ...probes.problems()], warnings }),
        unreachableProviders: () => probes.down.map((f) => ({ kind: f.kind, provider: f.provider, message: describeFailure(f) })),
        authenticate: (token, now) => authenticate(db, token, now, principals),
        background: { wakeAnalysis: () => s.jobs?.wakeAnalysis(), wakeWebhooks: () => s.jobs?.wakeWebhooks() },
        campaigns: { events: campaignEvents, poke: cluster.campaignWorkAnnouncer(db, pokeCampaigns, log), now: opts.campaignClock },
        voices: () => s.voice,
        appCalls: () => (s.jobs ? s.sip?.calls : undefined),
        capacity: () => (s.jobs ? s.sip?.calls.capacityNow() : undefined),
        agentTests: () => (s.jobs ? s.tests : undefined),
      }))
    },
    async () => (s.media = await telephony.startMedia(config, s.database!.db, storage, log)),
    () => (probes.start(), { stop: () => probes.stop() }),
    async () => {
      // loaded once to show they work, then unloaded until the first call (ENGINE_IDLE_RELEASE_MS)
      const voice = (s.voice = await createVoiceEngines(config, { log: log.child({ component: 'voice' }), unloadAfterStart: true }))
      log.info({ engines: voice.notes }, 'voice engines ready')
      warnings.push(...(await warnUnpriced(prices, voice, s.database!.db, log)))
      return { stop: () => voice.close() }
    },
    () => (s.placer = callWorkers.start({ config, media: s.media!.media, voice: s.voice!, metrics: s.metrics, log })),
    async () => (s.sip = await telephony.start({ config, db: s.database!.db, log, metrics: s.metrics!, placer: s.placer!, media: s.media!, voice: s.voice!, prices, ports, whileDraining: s.http!.stop, capacity: opts.capacity, testLines })),
    async () => (s.tests = await telephony.startAgentTests(config, s.database!.db, log, s.sip!, s.media!, testLines)),
    async () => (s.jobs = await background.start({ config, db: s.database!.db, log, voice: s.voice!, prices, calls: s.sip!.calls, storage, publicBase: s.http!.publicBase, shared, campaignEvents, campaignClock: opts.campaignClock, drainCalls: s.sip!.drain })),
  ])
  log.info({ url: s.http!.url, dataDir: config.DATA_DIR }, 'appliance started')
  const { database, metrics, http: web, placer, sip, jobs } = s as Required<typeof s>
  return {
    config, log, database, metrics, calls: sip.calls, callPlacer: placer, registrations: sip.registrations, campaigns: jobs.campaigns, sip: sip.sip, url: web.url, app: web.app,
    async stop() {
      await running.stop()
      log.info('appliance stopped')
    },
  }
}
