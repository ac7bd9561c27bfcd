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
  return new CallWorkerPool({ config, workers, idleMs: workerIdleMs(config), log: log.child({ component: 'call-workers' }), local: inProcess, metrics, shareEngines: () => engineShare(local.voice) })
}

/**
 * Ports to the main thread's engine threads for a call worker starting now. The worker keeps
 * them (loading them first: the engines may have been released while idle) until it stops, so
 * its ports stay valid; keeping is not using, so the engines' idle countdown runs from the last
 * call, whether the worker is still there or not.
 */
export function engineShare(voice: ConversationDeps['voice']): ReturnType<typeof shareEngines> & { release: () => void } {
  const release = voice.keep('threads')
  return { ...shareEngines(), release }
}

/**
 * How long a call worker without calls runs on: CALL_WORKER_IDLE_MS, and no longer than
 * ENGINE_IDLE_RELEASE_MS, since it keeps the engines it shares loaded. 0: it runs for good.
 */
export function workerIdleMs(config: Pick<Config, 'CALL_WORKER_IDLE_MS' | 'ENGINE_IDLE_RELEASE_MS'>): number {
  const { CALL_WORKER_IDLE_MS: worker, ENGINE_IDLE_RELEASE_MS: engines } = config
  return worker > 0 && engines > 0 ? Math.min(worker, engines) : worker
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
