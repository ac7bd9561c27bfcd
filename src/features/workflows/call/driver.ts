import { type EngineOptions, WorkflowEngine } from '../engine/engine.ts'
import type { AnswerSource, EngineInput, Final, RunState, StepResult } from '../engine/contracts.ts'
import type { Variables } from '../../../platform/template.ts'
import type { WorkflowGraph } from '../workflow.model.ts'
import { DigitBuffer, digitExpectation } from './dtmf.ts'

/** What a call does for the workflow: the voice engine implements it with TTS, SIP REFER and BYE. */
export interface CallIo {
  /** `last`: the words of the node that ends or transfers the call, which the caller cannot cut short. */
  say(text: string, nodeId: string, last: boolean, sources?: AnswerSource[]): Promise<void>
  transfer(target: string, nodeId: string): Promise<void>
  /** end_call, loop_limit and no_route all hang up; the reason goes into the call record. */
  hangup(reason: Final['action'], nodeId: string): Promise<void>
  /** The workflow cannot go on (no LLM, LLM down, tool missing): the voice engine decides what to do. */
  fail(err: Error): Promise<void>
}

export interface Timers {
  setTimeout(fn: () => void, ms: number): unknown
  clearTimeout(handle: unknown): void
}

export interface DriverOptions extends EngineOptions {
  /** Keys pressed and then a pause this long count as a complete entry. */
  interDigitMs?: number
  timers?: Timers
}

const realTimers: Timers = { setTimeout: (fn, ms) => setTimeout(fn, ms), clearTimeout: (h) => clearTimeout(h as ReturnType<typeof setTimeout>) }

/**
 * Drives the workflow engine during a call: speech and keys in, speech, transfer and hang-up
 * out. Events are handled one at a time in arrival order (a caller may speak while an LLM
 * answer is still pending); once the run has finished, further events are ignored.
 */
export class WorkflowCallDriver {
  private readonly engine: WorkflowEngine
  /** The same graph with no LLM and no tools: a step it can take has no side effect. */
  private readonly dry: WorkflowEngine
  private readonly digits = new DigitBuffer()
  private readonly timers: Timers
  private readonly interDigitMs: number
  private queue: Promise<void> = Promise.resolve()
  private digitTimer: unknown
  private current: RunState | undefined
  private stopped = false

  constructor(
    private readonly graph: WorkflowGraph,
    opts: DriverOptions,
    private readonly io: CallIo,
  ) {
    this.engine = new WorkflowEngine(graph, opts)
    // a knowledge search has no side effect either
    this.dry = new WorkflowEngine(graph, { maxVisits: opts.maxVisits, today: opts.today, knowledge: opts.knowledge })
    this.timers = opts.timers ?? realTimers
    this.interDigitMs = opts.interDigitMs ?? 3000
  }

  get state(): RunState | undefined {
    return this.current
  }

  get finished(): boolean {
    return this.stopped || this.current?.status === 'finished'
  }

  start(variables: Variables = {}): Promise<void> {
    return this.serial(() => this.step(() => this.engine.start(variables)))
  }

  /** A final transcript of what the caller said. */
  onSpeech(text: string): Promise<void> {
    if (text.trim() === '') return this.queue
    return this.serial(() => this.receive({ kind: 'speech', text }))
  }

  /**
   * One key (0-9, *, #, A-D) as the RTP layer reports it. Keys are buffered until the node the
   * run waits on has a complete entry (its digit count, `#`, or a pause of interDigitMs); the
   * decision is taken in turn with other events, so keys pressed during a pending step count
   * towards the node that step leads to.
   */
  onDtmf(key: string): Promise<void> {
    if (!/^[0-9*#A-D]$/.test(key)) return this.queue
    return this.serial(async () => {
      if (!this.current) return
      this.clearDigitTimer()
      const done = this.digits.push(key, digitExpectation(this.graph, this.current))
      if (done !== undefined) return this.receive({ kind: 'dtmf', digits: done })
      this.digitTimer = this.timers.setTimeout(() => {
        this.digitTimer = undefined
        void this.serial(async () => {
          const pending = this.digits.flush()
          if (pending !== undefined) await this.receive({ kind: 'dtmf', digits: pending })
        })
      }, this.interDigitMs)
    })
  }

  /**
   * What the run would do if the caller said `text` now, without doing it: whether the words
   * answer it (a condition or an extraction matches; the else edge does not) and what it would say first. Undefined when
   * that needs an LLM or a tool, or the run is not waiting for the caller. An answer node searches
   * the knowledge bases for it, which changes nothing.
   */
  async preview(text: string): Promise<{ answers: boolean; reply?: string } | undefined> {
    const state = this.current
    if (!state || this.finished || state.status !== 'awaiting_input' || text.trim() === '') return undefined
    try {
      const r = await this.dry.receive(state, { kind: 'speech', text })
      return { answers: r.understood, reply: r.responses[0]?.output }
    } catch {
      return undefined
    }
  }

  /** Resolves once every event received so far has been handled. */
  idle(): Promise<void> {
    return this.queue
  }

  /** The caller hung up: nothing more will be said or done. */
  stop(): void {
    this.clearDigitTimer()
    this.stopped = true
  }

  private clearDigitTimer() {
    if (this.digitTimer !== undefined) this.timers.clearTimeout(this.digitTimer)
    this.digitTimer = undefined
  }

  /** Runs `fn` after every earlier event; a failure of one event does not stop later ones. */
  private serial(fn: () => Promise<void>): Promise<void> {
    const run = this.queue.then(() => (this.finished ? undefined : fn()))
    this.queue = run.catch(() => {})
    return run
  }

  private receive(input: EngineInput): Promise<void> {
    const state = this.current
    if (!state) return Promise.resolve()
    return this.step(() => this.engine.receive(state, input))
  }

  private async step(run: () => Promise<StepResult>): Promise<void> {
    let result: StepResult
    try {
      result = await run()
    } catch (err) {
      this.stopped = true
      this.clearDigitTimer()
      await this.io.fail(err as Error)
      return
    }
    this.current = result.state
    const final = result.final
    for (const r of result.responses) await this.io.say(r.output, r.nodeId, r.nodeId === final?.nodeId, r.sources)
    if (!final) return
    this.clearDigitTimer()
    if (final.action === 'transfer' && final.target) await this.io.transfer(final.target, final.nodeId)
    else await this.io.hangup(final.action, final.nodeId)
  }
}
