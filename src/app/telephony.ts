// Telephony as running subsystems: the media engine (RTP ports, recordings and their upload)
// and the SIP side (user agent, the calls it carries, trunk registrations).
import { AgentTestRunner } from '../features/agent-tests/index.ts'
import { findWorkflowGraph } from '../features/workflows/index.ts'
import { Admission, CallRuntime, type CallPlacer, type CapacityModel, DbNumberDirectory, LiveCapacity, type TestLines, uploadedCalls } from '../features/calls/index.ts'
import { RefusalPolicy } from '../realtime/telephony/refusal/index.ts'
import type { Config } from '../platform/config/index.ts'
import type { Db } from '../platform/db/index.ts'
import type { Logger } from '../platform/log.ts'
import { MediaEngine } from '../realtime/media/index.ts'
import { type Metrics, sipObserver } from '../platform/metrics/index.ts'
import { TrunkRegistrations } from '../features/numbers/index.ts'
import { RecordingUploader, type RecordingStorage } from '../features/recordings/index.ts'
import { secretBoxFor } from '../platform/secrets/index.ts'
import { type PortCheck, portErrorOf } from './startup/index.ts'
import { stt as voiceStt, type VoiceEngines } from '../realtime/voice/index.ts'
import type { PriceTable } from '../realtime/voice/turn/index.ts'
import { RefusalLog, type UserAgent, userAgentFromConfig } from '../realtime/telephony/sip/index.ts'
import { describeSrtpCrypto } from '../realtime/srtp/index.ts'

export interface RunningMedia {
  media: MediaEngine
  uploader: RecordingUploader
  stop(): Promise<void>
}

/** Binds the media engine, repairs recordings the last run left open and resumes their upload. */
export async function startMedia(config: Config, db: Db, storage: RecordingStorage, log: Logger): Promise<RunningMedia> {
  const media = new MediaEngine(config, { bindHost: config.SIP_HOST })
  try {
    const { repaired } = await media.start()
    if (repaired.length) log.warn({ recordings: repaired }, 'recordings left open by the last run were repaired')
    const pacerWarning = media.pacerWarning()
    if (pacerWarning) log.warn(pacerWarning)
    const uploader = new RecordingUploader(uploadedCalls(db), storage, media.recordingsDir, log.child({ component: 'recordings' }))
    const leftover = await uploader.start()
    if (leftover) log.info({ recordings: leftover }, 'recordings left on disk by the last run are being uploaded')
    return {
      media,
      uploader,
      async stop() {
        await uploader.stop()
        await media.stop()
      },
    }
  } catch (err) {
    await media.stop().catch(() => {})
    throw err
  }
}

export interface TelephonyDeps {
  config: Config
  db: Db
  log: Logger
  metrics: Metrics
  placer: CallPlacer
  media: RunningMedia
  voice: VoiceEngines
  /** What calls are costed at. */
  prices: PriceTable
  ports: PortCheck
  /** What else closes while calls drain (the HTTP API), so a stop takes one drain, not two. */
  whileDraining(): Promise<void>
  /** The capacity model admission asks (tests inject one); default: the live figures against the CALLS_MAX and CAPACITY_* goals. */
  capacity?: CapacityModel
  /** The agent test phone's one-time lines (features/calls/test-lines.ts). */
  testLines?: TestLines
}

export interface RunningTelephony {
  calls: CallRuntime
  registrations: TrunkRegistrations
  /** The SIP ports actually bound (SIP_PORT 0 picks free ones). */
  sip: { udp?: number; tcp?: number; tls?: number }
  /** Places a call from this user agent (the agent test phone dials the appliance itself). */
  placeCall: UserAgent['placeCall']
  /** New calls get 503 at once; resolves when the calls in progress have ended (CALL_DRAIN_MS at most). Once only. */
  drain(): Promise<void>
  stop(): Promise<void>
}

export async function start(d: TelephonyDeps): Promise<RunningTelephony> {
  const { config, db, log, metrics, media, voice } = d
  const directory = new DbNumberDirectory(db, secretBoxFor(config.DATA_DIR), {
    carrierSources: config.CARRIER_SIP_SOURCES.split(',').map((s) => s.trim()).filter(Boolean),
    testLines: d.testLines,
  })
  const ua = userAgentFromConfig(config, directory, sipLog(log), sipObserver(metrics), (transport, reason) => metrics.sipConnectionRefused(transport, reason), (reason) => metrics.sipRequestRefused(reason))
  try {
    const sip = await ua.start().catch((err) => {
      const tls = (err as { port?: number }).port === config.SIP_TLS_PORT && config.SIP_TLS_PORT !== config.SIP_PORT
      throw tls ? portErrorOf(err, 'SIP_TLS_PORT', config.SIP_TLS_PORT, config.SIP_HOST, 'TCP') : portErrorOf(err, 'SIP_PORT', config.SIP_PORT, config.SIP_HOST, 'UDP/TCP')
    })
    if (d.ports.rtpPairsTaken > 0) log.warn({ taken: d.ports.rtpPairsTaken, pairs: d.ports.rtpPairs }, 'some RTP port pairs of RTP_PORT_MIN-RTP_PORT_MAX are held by another program; calls use the others')
    const policy = new RefusalPolicy({ stopping: config.SIP_RETRY_AFTER_SEC })
    const live = d.capacity ? undefined : liveCapacity(config, metrics)
    const capacity = d.capacity ?? live!
    // inbound refusals are logged by the user agent with the SIP source; the others once a minute per workspace
    const refusals = new RefusalLog({ info: (o, m) => log.child({ component: 'admission' }).info(o, m) }, { event: 'call_refused' })
    const admission = new Admission({
      db, policy, capacity,
      onRefused: (reason, kind, workspaceId) => {
        metrics.callRefused(kind, reason)
        if (kind !== 'inbound') refusals.refused({ reason, status: policy.of(reason).http, source: `workspace ${workspaceId}`, transport: 'http', method: kind })
      },
    })
    const calls = new CallRuntime({
      db, log, config, ua, placer: d.placer, metrics, policy, admission,
      prices: d.prices,
      sdpOptions: (address, port) => media.media.sdpOptions(address, { port }),
      recorded: (id, path) => media.uploader.finished(id, path),
      holdEngines: () => voice.hold('threads'),
    })
    log.info({ sip, srtpCiphers: describeSrtpCrypto() }, 'SIP listening')
    const registrations = new TrunkRegistrations(db, secretBoxFor(config.DATA_DIR), ua, log, {
      syncMs: config.SIP_REGISTER_SYNC_MS,
      expiresSec: config.SIP_REGISTER_EXPIRES_SEC,
      owner: config.NODE_ID,
      leaseMs: config.NODE_LEASE_MS,
    })
    await registrations.start()
    let draining: Promise<void> | undefined
    const drain = () =>
      (draining ??= (async () => {
        // SIP refuses new calls (503) from this moment, while the rest closes and calls drain
        const callsStopped = calls.stop(config.CALL_DRAIN_MS)
        await registrations.stop()
        await d.whileDraining()
        await callsStopped
        live?.stop()
        refusals.flush()
        refusals.stop()
      })())
    return { calls, registrations, sip, placeCall: (opts) => ua.placeCall(opts), drain, stop: drain }
  } catch (err) {
    await ua.stop().catch(() => {})
    throw err
  }
}

function liveCapacity(config: Config, metrics: Metrics): LiveCapacity {
  const off = (v: number) => (v > 0 ? v : Infinity)
  return new LiveCapacity({
    limits: { callsMax: config.CALLS_MAX, lagMs: off(config.CAPACITY_LAG_MS), cpu: off(config.CAPACITY_CPU_PERCENT) / 100, latenessMs: off(config.CAPACITY_LATENESS_MS), realTimeFactor: off(config.CAPACITY_STT_RTF_PERCENT) / 100, backlogMs: off(config.CAPACITY_STT_BACKLOG_MS) },
    extra: () => {
      const stt = voiceStt.pocketsphinxLoad()
      return { sendLatenessMs: metrics.takeMediaLag(), sttRealTimeFactor: stt?.realTimeFactor, sttBacklogMs: stt?.backlogMs }
    },
  })
}

/** The agent test runner: its phone dials this appliance's SIP port; runs a last process left running are marked interrupted. */
export async function startAgentTests(config: Config, db: Db, log: Logger, sip: RunningTelephony, media: RunningMedia, lines: TestLines) {
  const tests = new AgentTestRunner({
    db,
    log: log.child({ component: 'agent-tests' }),
    phone: { placeCall: sip.placeCall, sipPort: sip.sip.udp ?? config.SIP_PORT, media: media.media, lines },
    concurrency: config.AGENT_TEST_CONCURRENCY,
    graphOf: (workspaceId, agentId) => findWorkflowGraph(db, workspaceId, agentId),
  })
  const interrupted = await tests.recover()
  if (interrupted) log.warn({ runs: interrupted }, 'agent test runs the last run left unfinished are marked interrupted')
  return tests
}

/** The SIP layer logs through a two-method interface; its records are tagged. */
function sipLog(log: Logger) {
  const child = log.child({ component: 'sip' })
  return { debug: (o: object, m?: string) => child.debug(o, m), info: (o: object, m?: string) => child.info(o, m), warn: (o: object, m?: string) => child.warn(o, m) }
}
