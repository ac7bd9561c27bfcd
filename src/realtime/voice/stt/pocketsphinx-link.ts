import { workerScript } from '../../../platform/embedded/index.ts'
import { type DecodeLoad, worstLoad } from './pocketsphinx-load.ts'
import type { SphinxAttach, SphinxRelease, SphinxReply, SphinxRequest } from './pocketsphinx-worker.ts'

export type Listener = (r: SphinxReply) => void
type Endpoint = { postMessage(m: SphinxRequest | SphinxRelease, transfer: ArrayBuffer[]): void; onmessage: any }

/** Requests to a pocketsphinx worker thread, or to a port of one another thread owns; replies go to their stream. */
export class SphinxLink {
  private readonly streams = new Map<number, Listener>()
  private nextSid = 1
  dead: string | undefined
  /** The thread's last word on whether it keeps up (a worker of this thread's own only). */
  load: DecodeLoad | undefined

  constructor(
    // a Worker and a MessagePort type their handlers differently; both are used the same way here
    private readonly endpoint: Endpoint,
    readonly thread?: Worker,
  ) {
    endpoint.onmessage = (ev: MessageEvent<SphinxReply>) => {
      const r = ev.data
      if (r.op === 'load') this.load = { realTimeFactor: r.realTimeFactor, backlogMs: r.backlogMs }
      else this.streams.get(r.sid)?.(r)
    }
    if (thread) thread.onerror = (ev) => this.fail(`pocketsphinx worker crashed: ${ev.message}`)
  }

  send(m: SphinxRequest | SphinxRelease, transfer: ArrayBuffer[] = []): void {
    if (!this.dead) this.endpoint.postMessage(m, transfer)
  }

  /** Utterances open on this link now. */
  get openStreams(): number {
    return this.streams.size
  }

  /** A stream id of this link and its replies; `forget` stops listening. */
  listen(listener: Listener): { sid: number; forget: () => void } {
    const sid = this.nextSid++
    if (this.dead) queueMicrotask(() => listener({ op: 'error', sid, error: this.dead! }))
    else this.streams.set(sid, listener)
    return { sid, forget: () => this.streams.delete(sid) }
  }

  close(): void {
    const i = this.thread ? ownWorkers.indexOf(this.thread) : -1
    if (i >= 0) ownWorkers.splice(i, 1)
    const j = ownLinks.indexOf(this)
    if (j >= 0) ownLinks.splice(j, 1)
    this.thread?.terminate()
    this.fail('pocketsphinx engine closed')
  }

  private fail(error: string): void {
    this.dead ??= error
    for (const [sid, l] of this.streams) l({ op: 'error', sid, error })
    this.streams.clear()
  }
}

/** One utterance's way to the worker. */
export interface SphinxChannel {
  send(m: SphinxRequest, transfer?: ArrayBuffer[]): void
  readonly sid: number
  /** Stops listening; `drop` also frees the utterance's decoder in the worker (it did not end). */
  close(drop: boolean): void
}

/** This thread's own pocketsphinx workers (shared with call workers in turn), and a shared one's port. */
const ownWorkers: Worker[] = []
const ownLinks: SphinxLink[] = []
let nextShared = 0
let sharedLink: SphinxLink | undefined

/** In a call worker: every PocketsphinxStt of this thread decodes on another thread's worker. */
export function useSharedPocketsphinx(port: MessagePort | undefined): void {
  if (port) sharedLink = new SphinxLink(port)
}

/** A port to one of this thread's pocketsphinx workers (each call worker gets the next), or undefined when it has none. */
export function sharePocketsphinx(): MessagePort | undefined {
  const worker = ownWorkers[nextShared++ % Math.max(1, ownWorkers.length)]
  if (!worker) return undefined
  const { port1, port2 } = new MessageChannel()
  worker.postMessage({ attach: port1 } satisfies SphinxAttach, [port1])
  return port2
}

/** In a call worker, the link to the main thread's worker that every engine of this thread uses. */
export function sharedSphinxLink(): SphinxLink | undefined {
  return sharedLink
}

/** A worker thread of this thread's own; the first one is the one shared with call workers. */
export function startSphinxWorker(): SphinxLink {
  const worker = new Worker(workerScript('realtime/voice/stt/pocketsphinx-worker.ts', new URL('./pocketsphinx-worker.ts', import.meta.url)))
  worker.unref()
  ownWorkers.push(worker)
  const link = new SphinxLink(worker, worker)
  ownLinks.push(link)
  return link
}

/** Whether this thread's decoder threads (the ones call workers share too) keep up: the worst of them; undefined: none decoded yet. */
export function pocketsphinxLoad(): DecodeLoad | undefined {
  return worstLoad(ownLinks.map((l) => l.load))
}
