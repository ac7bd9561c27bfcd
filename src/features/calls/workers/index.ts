// Calls on every core: where calls run. CALL_WORKERS=0 keeps every call on the main thread
// (the in-process path); otherwise CALL_WORKERS threads each carry whole calls (media, voice
// session, brain, recording) and the main thread keeps SIP, HTTP and the database.
import { availableParallelism } from 'node:os'
import { callWorkerCount as workersOf, type Config } from '../../../platform/config/index.ts'
import type { Logger } from '../../../platform/log.ts'
import { localPlacer, type CallPlacer, type ConversationDeps } from '../conversation/index.ts'
import { shareEngines } from '../../../realtime/voice/index.ts'
import { workflowLlm } from '../../../realtime/voice/registry/index.ts'
import { CallWorkerPool, type PoolMetrics } from './pool.ts'

export { CallWorkerPool, portSlices, type PoolMetrics } from './pool.ts'
export type { WorkerStats } from './protocol.ts'

/** CALL_WORKERS as configured: `auto` is one per core (loadConfig has refused anything else). */
export const callWorkerCount = (configured: string): number => workersOf(configured, availableParallelism())

export function callPlacer(config: Config, local: ConversationDeps, metrics: PoolMetrics | undefined, log: Logger): CallPlacer {
  const inProcess = localPlacer(local)
  const workers = callWorkerCount(config.CALL_WORKERS)
  if (workers === 0) return inProcess
  log.info({ callWorkers: workers }, 'calls run in call worker threads')
  // a running worker holds the main thread's engine threads: its ports to them stay valid until it stops
  const share = () => ({ ...shareEngines(), release: local.voice.hold('threads') })
  return new CallWorkerPool({ config, workers, idleMs: config.CALL_WORKER_IDLE_MS, log: log.child({ component: 'call-workers' }), local: inProcess, metrics, shareEngines: share })
}

/** Starts where calls run, on the loaded media and speech engines: the placer stops the workers. */
export function start(deps: { config: Config; media: ConversationDeps['media']; voice: ConversationDeps['voice']; metrics?: PoolMetrics; log: Logger }): CallPlacer {
  const { config, media, voice, metrics, log } = deps
  const conversations: ConversationDeps = {
    media,
    voice,
    lines: config,
    workflowLlm: workflowLlm(config),
    maxVisits: config.WORKFLOW_MAX_VISITS,
    allowPrivateTools: config.TOOLS_ALLOW_PRIVATE,
    log,
  }
  return callPlacer(config, conversations, metrics, log)
}
