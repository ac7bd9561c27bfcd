// What runs in the background once calls can be placed: the call analysis, the webhook outbox,
// retention and the campaign dispatcher. Stopping waits for the calls in progress in between:
// the dispatcher stops dialling first, and the workers stop only once the drained calls have
// written their analysis and webhook rows.
import { join } from 'node:path'
import { AnalysisWorker, type CallRuntime, callWebhookDocument, recordsDeps, RetentionSweeper } from '../../features/calls/index.ts'
import { amdGateFactory, type CampaignEvents, contactOfCall, Dispatcher } from '../../features/campaigns/index.ts'
import { type Config, outboundUrlPolicy } from '../../platform/config/index.ts'
import type { Db } from '../../platform/db/index.ts'
import type { Logger } from '../../platform/log.ts'
import type { PublicBase } from '../../platform/net/index.ts'
import type { RecordingStorage } from '../../features/recordings/index.ts'
import { secretBoxFor } from '../../platform/secrets/index.ts'
import type { VoiceEngines } from '../../realtime/voice/index.ts'
import type { PriceTable } from '../../realtime/voice/turn/index.ts'
import { parseSchedule, WebhookWorker } from '../../features/webhooks/index.ts'

export interface BackgroundDeps {
  config: Config
  db: Db
  log: Logger
  voice: VoiceEngines
  /** What the call analysis is costed at. */
  prices: PriceTable
  calls: CallRuntime
  storage: RecordingStorage
  publicBase: PublicBase
  /** Other nodes share the database: the dispatcher also rechecks for their campaign work. */
  shared: boolean
  campaignEvents: CampaignEvents
  campaignClock?: () => number
  /** Stops taking calls and resolves once the calls in progress have ended. */
  drainCalls(): Promise<void>
}

export interface RunningBackground {
  campaigns: Dispatcher
  wakeAnalysis(): void
  wakeWebhooks(): void
  stop(): Promise<void>
}

export async function start(d: BackgroundDeps): Promise<RunningBackground> {
  const { config, db, voice } = d
  const log = (component: string) => d.log.child({ component })
  const webhooks = new WebhookWorker({
    db,
    box: secretBoxFor(config.DATA_DIR),
    log: log('webhooks'),
    policy: outboundUrlPolicy(config),
    schedule: parseSchedule(config.WEBHOOK_RETRY_SCHEDULE),
    concurrency: config.WEBHOOK_CONCURRENCY,
    pollMs: config.BACKGROUND_POLL_MS,
    leaseMs: config.WEBHOOK_LEASE_MS,
    render: (row) => callWebhookDocument(recordsDeps(db, config, d.publicBase()), row.call_id, (id) => contactOfCall(db, id, d.campaignClock?.() ?? Date.now())),
  })
  const retention = new RetentionSweeper(
    db,
    { recordingDays: config.RECORDING_RETENTION_DAYS, callDays: config.CALL_RETENTION_DAYS, recordingsDir: join(config.DATA_DIR, 'recordings') },
    log('retention'),
    d.storage,
  )
  const analysis = new AnalysisWorker({ db, log: log('analysis'), llm: voice.llm, prices: d.prices, pollMs: config.BACKGROUND_POLL_MS, onReleased: () => webhooks.wake() })
  const campaigns = new Dispatcher({
    db,
    box: secretBoxFor(config.DATA_DIR),
    dialer: d.calls,
    events: d.campaignEvents,
    log: log('campaigns'),
    owner: config.NODE_ID,
    leaseMs: config.CAMPAIGN_LEASE_MS,
    idleRecheckMs: d.shared ? 10_000 : undefined,
    maxCalls: config.OUTBOUND_MAX_CALLS,
    answerGate: amdGateFactory(db, voice),
    now: d.campaignClock,
  })
  const stopWorkers = () => Promise.all([analysis.stop(), webhooks.stop(), retention.stop()]).then(() => {})
  analysis.start()
  webhooks.start()
  retention.start()
  await campaigns.start().catch(async (err) => {
    campaigns.stop()
    await stopWorkers()
    throw err
  })
  return {
    campaigns,
    wakeAnalysis: () => analysis.wake(),
    wakeWebhooks: () => webhooks.wake(),
    async stop() {
      campaigns.stop()
      await d.drainCalls()
      // calls that ended while draining have written their analysis and webhook rows by now
      await campaigns.settled()
      await stopWorkers()
    },
  }
}
