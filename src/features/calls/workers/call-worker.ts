// A call worker thread: its own media engine (a slice of the RTP ports, its own media clock),
// its own voice engines, and the calls the main thread places here. Started by pool.ts.
import { parentPort, workerData } from 'node:worker_threads'
import type { Config } from '../../../platform/config/index.ts'
import { createLogger } from '../../../platform/log.ts'
import { MediaEngine } from '../../../realtime/media/index.ts'
import { createVoiceEngines, useSharedEngines } from '../../../realtime/voice/index.ts'
import { workflowLlm } from '../../../realtime/voice/registry/index.ts'
import { CallHost } from './host.ts'
import type { FromWorker, ToWorker } from './protocol.ts'

export interface CallWorkerData {
  config: Config
  index: number
  /** The RTP ports of this worker, a slice of RTP_PORT_MIN..RTP_PORT_MAX. */
  rtp: { min: number; max: number }
}

const port = parentPort!
const data = workerData as CallWorkerData
const post = (m: FromWorker) => port.postMessage(m)
const config = data.config
const log = createLogger(config.LOG_LEVEL).child({ component: 'call-worker', worker: data.index })
// the first message hands over the main thread's engine threads (flite, pocketsphinx) to share
const engines = new Promise<ToWorker>((resolve) => port.once('message', resolve))
// messages sent to a thread before its modules have loaded may be lost: say when it listens
post({ t: 'listening' })
const first = await engines
if (first.t === 'engines') useSharedEngines(first.ports, { idleMs: config.ENGINE_IDLE_RELEASE_MS, warn: (message) => log.warn(message) })
const media = new MediaEngine({ ...config, RTP_PORT_MIN: data.rtp.min, RTP_PORT_MAX: data.rtp.max }, { bindHost: config.SIP_HOST })
await media.startPacer()
// the main thread logs the common case (no real-time priority) once; a pacer that failed here is this worker's own
if (!media.pacer && config.MEDIA_PACER !== 'off') log.warn(media.pacerWarning() ?? 'the RTP pacer did not start')
const voice = await createVoiceEngines(config, { log })
const host = new CallHost(
  { media, voice, lines: config, workflowLlm: workflowLlm(config), maxVisits: config.WORKFLOW_MAX_VISITS, allowPrivateTools: config.TOOLS_ALLOW_PRIVATE, log },
  post,
)
port.on('message', (m: ToWorker) => host.handle(m))

// the event loop's own stalls, as the metrics' lag probe measures them on the main thread
let lagMaxMs = 0
let expected = performance.now()
// flite and pocketsphinx are the main thread's (shared); the Silero host is this worker's own
let ownLoaded: Record<string, boolean> = {}
let ticks = 0
setInterval(() => {
  const now = performance.now()
  lagMaxMs = Math.max(lagMaxMs, now - expected - 20)
  expected = now
  // once a second, and at once when the Silero host starts or ends
  const own = voice.loaded('vad')
  if (++ticks % 50 !== 0 && Object.keys(own).every((id) => own[id] === ownLoaded[id])) return
  ownLoaded = own
  post({ t: 'stats', stats: { calls: host.size, loopLagMaxMs: Math.round(lagMaxMs * 10) / 10, clockLatenessP99Ms: media.clock.lateness.percentile(99), engines: own } })
  lagMaxMs = 0
}, 20)
post({ t: 'ready' })
