// One call worker as the main thread sees it: its thread (started on demand, stopped after an
// idle period, started again after a failure), the calls it carries and its requests in flight.
import { Worker } from 'node:worker_threads'
import type { Logger } from '../../../platform/log.ts'
import type { SharedEnginePorts } from '../../../realtime/voice/index.ts'
import { CallWorkerFailed } from '../conversation/index.ts'
import type { CallWorkerData } from './call-worker.ts'
import { PendingReplies, type FromWorker, type ToWorker, type WorkerStats } from './protocol.ts'
import { webReported, type RemoteCall, type WorkerLink } from './remote.ts'
import { WebRtcOfferError } from '../../../realtime/webrtc/index.ts'

export interface SlotHooks {
  log: Logger
  /** Where the worker script is (a file URL from the checkout, an embedded path in the executable). */
  script: string
  /** After this long without calls the thread stops (0: never). */
  idleMs: number
  /** Ports to the main thread's engine threads, handed to each new worker. */
  shareEngines?(): { ports: SharedEnginePorts; transfer: MessagePort[]; release?: () => void }
  failed(index: number, calls: number, reason: string): void
  /** The worker's statistics once a second; undefined once its thread has ended. */
  stats(index: number, stats: WorkerStats | undefined): void
}

export class PortsExhausted extends Error {}

export class WorkerSlot implements WorkerLink {
  readonly calls = new Map<number, RemoteCall>()
  /** Placements asked for and not yet answered: they count as load. */
  placing = 0
  private worker?: Worker
  private ready?: Promise<void>
  private pending = new PendingReplies()
  private idle?: ReturnType<typeof setTimeout>
  /** Lets go of the main thread's engine threads this worker shares. */
  private releaseEngines?: () => void

  constructor(
    readonly index: number,
    private readonly data: Omit<CallWorkerData, 'index'>,
    private readonly hooks: SlotHooks,
  ) {}

  get load(): number {
    return this.calls.size + this.placing
  }

  get running(): boolean {
    return this.worker !== undefined
  }

  /** The worker thread, started if it is not running; resolves once its engines are loaded. */
  started(): Promise<void> {
    clearTimeout(this.idle)
    if (this.ready) return this.ready
    const worker = new Worker(this.hooks.script.startsWith('file:') ? new URL(this.hooks.script) : this.hooks.script, {
      workerData: { ...this.data, index: this.index } satisfies CallWorkerData,
    })
    this.worker = worker
    this.pending = new PendingReplies()
    this.ready = new Promise<void>((resolve, reject) => {
      worker.on('message', (m: FromWorker) => {
        if (m.t === 'listening') {
          this.releaseEngines?.()
          const shared = this.hooks.shareEngines?.() ?? { ports: { flite: [] }, transfer: [] }
          this.releaseEngines = shared.release
          worker.postMessage({ t: 'engines', ports: shared.ports } satisfies ToWorker, shared.transfer as never)
        } else if (m.t === 'ready') resolve()
        else this.onMessage(m)
      })
      worker.on('error', (err) => this.hooks.log.error({ err, worker: this.index }, 'call worker failed'))
      worker.on('exit', (code) => {
        reject(new CallWorkerFailed(`call worker ${this.index} exited (${code}) while starting`))
        this.onExit(worker, code)
      })
    })
    this.ready.catch(() => {})
    return this.ready
  }

  post(m: ToWorker): void {
    this.worker?.postMessage(m)
  }

  request<T>(make: (rid: number) => ToWorker): Promise<T> {
    if (!this.worker) return Promise.reject(new CallWorkerFailed(`call worker ${this.index} is not running`))
    const { rid, reply } = this.pending.open<T>()
    this.worker.postMessage(make(rid))
    return reply
  }

  settleError = (r: { error: string; code?: string }): Error =>
    r.code === 'ports_exhausted' ? new PortsExhausted(r.error) : r.code === 'offer_refused' ? new WebRtcOfferError(r.error) : new Error(r.error)

  done(cid: number): void {
    this.calls.delete(cid)
    if (this.load === 0 && this.hooks.idleMs > 0 && this.worker) {
      clearTimeout(this.idle)
      this.idle = setTimeout(() => {
        this.hooks.log.info({ worker: this.index, idleMs: this.hooks.idleMs }, 'call worker stopped: no call for its idle time')
        void this.stop()
      }, this.hooks.idleMs)
    }
  }

  private onMessage(m: FromWorker): void {
    switch (m.t) {
      case 'reply':
        return this.pending.settle(m, this.settleError)
      case 'stats':
        return this.hooks.stats(this.index, m.stats)
      case 'web': {
        const web = this.calls.get(m.cid)?.web
        if (web) webReported(web, m)
        return
      }
      case 'shutdown':
        return
      case 'event': {
        const ev = this.calls.get(m.cid)?.events
        if (!ev) return
        const e = m.event
        if (e.e === 'answered') ev.answered(e.info)
        else if (e.e === 'hangup') ev.hangup(e.reason)
        else if (e.e === 'gateHangup') ev.gateHangup()
        else if (e.e === 'providerFailed') ev.providerFailed(e.provider, e.error)
        else if (e.e === 'transcribed') ev.transcribed(e.item)
        else if (e.e === 'turnMeasured') ev.turnMeasured(e.turn, e.latency)
        else ev.turn(e.text, e.latency, e.turn)
        return
      }
      case 'transfer':
      case 'optOut':
      case 'searchKnowledge': {
        const ev = this.calls.get(m.cid)?.events
        const work: Promise<unknown> = !ev
          ? Promise.reject(new Error('the call is over'))
          : m.t === 'transfer'
            ? ev.transfer(m.target)
            : m.t === 'optOut'
              ? ev.optOut()
              : ev.searchKnowledge(m.query, m.opts)
        work.then(
          (value) => this.post({ t: 'reply', rid: m.rid, ok: true, value }),
          (err: Error) => this.post({ t: 'reply', rid: m.rid, ok: false, error: err.message }),
        )
      }
    }
  }

  /** The thread ended: on purpose (idle, stop) or not, its calls are gone. */
  private onExit(worker: Worker, code: number): void {
    if (this.worker !== worker) return
    this.worker = undefined
    this.ready = undefined
    clearTimeout(this.idle)
    this.letGoOfEngines()
    this.hooks.stats(this.index, undefined)
    const reason = `call worker ${this.index} exited (code ${code})`
    this.pending.failAll(new CallWorkerFailed(reason))
    const calls = [...this.calls.values()]
    this.calls.clear()
    this.hooks.failed(this.index, calls.length, reason)
    for (const c of calls) {
      if (c.web) webReported(c.web, { state: 'ended', reason: 'failed' })
      if (c.started) c.events?.failed(reason)
    }
    // ready again for the next calls (and the failed calls' restart does not wait for one)
    void this.started().catch(() => {})
  }

  private letGoOfEngines(): void {
    const release = this.releaseEngines
    this.releaseEngines = undefined
    release?.()
  }

  /** Ends the thread (the pool is stopping, or the worker was idle). */
  async stop(): Promise<void> {
    const worker = this.worker
    if (!worker) return
    clearTimeout(this.idle)
    this.worker = undefined
    this.ready = undefined
    // its hold on the shared engine threads goes once it has ended: ended before, their ports
    // would close under a worker still stopping, which takes that for a lost thread
    const release = this.releaseEngines
    this.releaseEngines = undefined
    this.pending.failAll(new CallWorkerFailed(`call worker ${this.index} stopped`))
    this.calls.clear()
    try {
      await this.shutdown(worker)
      await worker.terminate()
    } finally {
      release?.()
    }
    this.hooks.stats(this.index, undefined)
  }

  /** Lets a running worker end its helper processes before it is terminated (at most a second). */
  private async shutdown(worker: Worker): Promise<void> {
    let onMessage: (m: FromWorker) => void = () => {}
    const acked = new Promise<void>((resolve) => {
      onMessage = (m) => m.t === 'shutdown' && resolve()
      worker.on('message', onMessage)
    })
    worker.postMessage({ t: 'shutdown' } satisfies ToWorker)
    let timer: ReturnType<typeof setTimeout> | undefined
    await Promise.race([acked, new Promise<void>((resolve) => (timer = setTimeout(resolve, 1000)))])
    clearTimeout(timer)
    worker.off('message', onMessage)
  }

  /** For tests: ends the thread as a crash would. */
  async kill(): Promise<void> {
    await this.worker?.terminate()
  }
}
