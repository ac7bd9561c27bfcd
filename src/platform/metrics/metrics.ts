// The appliance's Prometheus instruments, on a registry of its own (several appliances may share
// a process in the tests). Everything observed is bounded in label values: methods, codes,
// outcomes and route templates, never ids or numbers.
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client'
import { HttpSeries } from './http-series.ts'

/** Latency buckets in milliseconds, from a fast local turn to a slow cloud one. */
const MS_BUCKETS = [5, 10, 20, 40, 80, 150, 250, 400, 600, 800, 1000, 1500, 2000, 3000, 5000, 10000]

/** SIP calls are inbound or outbound; web (browser) and stream (media-stream WebSocket) calls are app legs. */
export type CallDirection = 'inbound' | 'outbound' | 'web' | 'stream' | 'test'

export interface TurnLatencies {
  vadHangoverMs: number | null
  endpointingMs: number | null
  sttFinalMs: number | null
  responseMs: number | null
  llmTtftMs: number | null
  ttsTtfbMs: number | null
  leadingSilenceMs: number | null
  voiceToVoiceMs: number | null
}

export interface EndedCall {
  direction: CallDirection
  outcome: string
  turns: TurnLatencies[]
  rtp?: { received: number; sent: number; lost: number; jitterMs: number; srtp?: SrtpDrops }
}

/** SRTP/SRTCP packets an encrypted call dropped, by why. */
export interface SrtpDrops {
  authFailures: number
  replays: number
  malformed: number
}

export class Metrics {
  readonly registry = new Registry()
  private readonly callsTotal: Counter<'direction' | 'outcome'>
  private readonly sipRequests: Counter<'direction' | 'method'>
  private readonly sipResponses: Counter<'direction' | 'method' | 'code'>
  private readonly sipConnectionsRefused: Counter<'transport' | 'reason'>
  private readonly sipRefused: Counter<'reason'>
  private readonly callsRefused: Counter
  private readonly rtpPackets: Counter<'direction'>
  private readonly srtpDropped: Counter<'reason'>
  private readonly rtpLost: Counter
  private readonly rtpJitter: Histogram
  private readonly turn: Record<keyof TurnLatencies, Histogram>
  private readonly providerErrors: Counter<'provider'>
  private readonly agentSilent: Counter<'direction'>
  private readonly httpSeries: HttpSeries
  private lagMaxMs = 0
  private mediaLagMs = 0
  private readonly workerFailures: Counter
  private readonly workerFailedCalls: Counter
  /** The latest statistics of each call worker (sent once a second); lag is the largest since the last scrape. */
  private readonly workers = new Map<string, { calls: number; lagMaxMs: number; engines: Record<string, boolean> }>()
  private lagTimer: ReturnType<typeof setInterval> | undefined

  constructor(opts: { liveCalls?: () => number; queues?: () => Record<string, number>; enginesLoaded?: () => Record<string, boolean>; capacity?: () => { capacity: number; headroom: number } | undefined } = {}) {
    const registers = [this.registry]
    collectDefaultMetrics({ register: this.registry, prefix: 'voice_agent_' })
    // Under Bun, v8.getHeapSpaceStatistics() walks the whole heap: 35-100 ms of the main thread
    // per scrape at a busy appliance's heap, which every SIP transaction and call waits out.
    for (const kind of ['total', 'used', 'available']) this.registry.removeSingleMetric(`voice_agent_nodejs_heap_space_size_${kind}_bytes`)
    new Gauge({ name: 'voice_agent_calls_live', help: 'calls in progress now', registers, collect() { this.set(opts.liveCalls?.() ?? 0) } })
    // no ceiling (Infinity) is reported as -1: Prometheus has no "unlimited"
    const finite = (v: number | undefined) => (v === undefined ? -1 : Number.isFinite(v) ? Math.max(0, v) : -1)
    new Gauge({ name: 'voice_agent_capacity_calls', help: 'calls this node carries within its goals (-1: no ceiling)', registers, collect() { this.set(finite(opts.capacity?.()?.capacity)) } })
    new Gauge({ name: 'voice_agent_headroom_calls', help: 'calls this node takes now before refusing (-1: no ceiling)', registers, collect() { this.set(finite(opts.capacity?.()?.headroom)) } })
    this.callsTotal = new Counter({ name: 'voice_agent_calls_total', help: 'ended calls by direction and outcome', labelNames: ['direction', 'outcome'], registers })
    this.sipRequests = new Counter({ name: 'voice_agent_sip_requests_total', help: 'SIP requests received (in) and sent (out), retransmissions not counted', labelNames: ['direction', 'method'], registers })
    this.sipResponses = new Counter({ name: 'voice_agent_sip_responses_total', help: 'SIP responses received (in) and sent (out) by status code', labelNames: ['direction', 'method', 'code'], registers })
    this.sipConnectionsRefused = new Counter({
      name: 'voice_agent_sip_connections_refused_total',
      help: 'SIP TCP and TLS connections refused or closed by a limit: source_limit, total_limit, handshake_timeout, message_timeout',
      labelNames: ['transport', 'reason'],
      registers,
    })
    this.sipRefused = new Counter({
      name: 'voice_agent_sip_refused_total',
      help: 'SIP requests refused, by reason: unknown_number, not_trunk, bad_digest, rate_limited, malformed, unsupported, no_dialog, stopping, unavailable, and the load refusals of voice_agent_calls_refused_total (docs/pbx.md)',
      labelNames: ['reason'],
      registers,
    })
    this.callsRefused = new Counter({
      name: 'voice_agent_calls_refused_total',
      help: 'calls refused before they started by kind (inbound, outbound, web, stream) and reason: workspace_limit, no_headroom, web_slots, web_share (docs/operations.md)',
      labelNames: ['kind', 'reason'],
      registers,
    })
    this.rtpPackets = new Counter({ name: 'voice_agent_rtp_packets_total', help: 'RTP packets of ended calls, received (in) and sent (out)', labelNames: ['direction'], registers })
    this.srtpDropped = new Counter({
      name: 'voice_agent_srtp_packets_dropped_total',
      help: 'SRTP and SRTCP packets of ended encrypted calls dropped, by reason: auth (the tag did not verify), replay (seen already or too old), malformed',
      labelNames: ['reason'],
      registers,
    })
    this.rtpLost = new Counter({ name: 'voice_agent_rtp_packets_lost_total', help: 'RTP packets the callers sent that never arrived (ended calls)', registers })
    this.rtpJitter = new Histogram({ name: 'voice_agent_rtp_jitter_ms', help: 'interarrival jitter of each ended call (RFC 3550), ms', buckets: [1, 2, 5, 10, 20, 40, 80, 160], registers })
    const hist = (name: string, help: string) => new Histogram({ name, help, buckets: MS_BUCKETS, registers })
    this.turn = {
      voiceToVoiceMs: hist('voice_agent_voice_to_voice_ms', 'from the caller\'s last voiced audio to the agent\'s first voiced audio sent, per turn, ms'),
      llmTtftMs: hist('voice_agent_llm_first_token_ms', 'LLM time to first token, per turn, ms'),
      ttsTtfbMs: hist('voice_agent_tts_first_audio_ms', 'TTS time to first audio, per turn, ms'),
      endpointingMs: hist('voice_agent_endpointing_ms', 'silence waited before deciding the caller finished, per turn, ms'),
      sttFinalMs: hist('voice_agent_stt_final_ms', 'from the end of speech to the STT final, per turn, ms'),
      vadHangoverMs: hist('voice_agent_vad_hangover_ms', 'from the end of speech to the end of the silence that ends the turn (part of endpointing), per turn, ms'),
      responseMs: hist('voice_agent_response_ms', 'from the turn committed to the agent\'s first audio frame sent (brain, LLM, TTS), per turn, ms'),
      leadingSilenceMs: hist('voice_agent_leading_silence_ms', 'silence the TTS put before the agent\'s first words, per turn, ms'),
    }
    this.providerErrors = new Counter({ name: 'voice_agent_provider_errors_total', help: 'failed STT, LLM and TTS requests by provider', labelNames: ['provider'], registers })
    this.agentSilent = new Counter({ name: 'voice_agent_calls_agent_silent_total', help: 'answered calls in which the agent sent no audio at all (a warning is logged for each)', labelNames: ['direction'], registers })
    this.httpSeries = new HttpSeries(this.registry, { requests: 'voice_agent_http_requests_total', duration: 'voice_agent_http_request_duration_ms' }, [0.5, 1, 2, 5, 10, 25, 50, 100, 250, 1000])
    const self = this
    new Gauge({
      name: 'voice_agent_event_loop_lag_ms',
      help: 'largest lateness of a 20 ms timer since the last scrape, ms: how long the process could not serve SIP, media or HTTP',
      registers,
      collect() {
        this.set(Math.round(self.lagMaxMs * 10) / 10)
        self.lagMaxMs = 0
      },
    })
    this.workerFailures = new Counter({ name: 'voice_agent_call_worker_failures_total', help: 'call worker threads that died (each is restarted)', registers })
    this.workerFailedCalls = new Counter({ name: 'voice_agent_call_worker_failed_calls_total', help: 'calls hung up because their call worker died', registers })
    new Gauge({
      name: 'voice_agent_call_worker_calls',
      help: 'calls each call worker thread carries now',
      labelNames: ['worker'],
      registers,
      collect() {
        this.reset()
        for (const [worker, w] of self.workers) this.set({ worker }, w.calls)
      },
    })
    new Gauge({
      name: 'voice_agent_call_worker_loop_lag_ms',
      help: 'largest lateness of a 20 ms timer in each call worker since the last scrape, ms: how long its calls\' media could not run',
      labelNames: ['worker'],
      registers,
      collect() {
        this.reset()
        for (const [worker, w] of self.workers) {
          this.set({ worker }, w.lagMaxMs)
          w.lagMaxMs = 0
        }
      },
    })
    new Gauge({
      name: 'voice_agent_engine_loaded',
      help: 'offline engines in memory now (1) or unloaded while idle (0), see ENGINE_IDLE_RELEASE_MS',
      labelNames: ['engine'],
      registers,
      collect() {
        // an engine is loaded when the main thread or any call worker has it in memory
        const loaded: Record<string, boolean> = { ...opts.enginesLoaded?.() }
        for (const w of self.workers.values()) for (const [engine, on] of Object.entries(w.engines)) loaded[engine] = (loaded[engine] ?? false) || on
        for (const [engine, on] of Object.entries(loaded)) this.set({ engine }, on ? 1 : 0)
      },
    })
    new Gauge({
      name: 'voice_agent_queue_depth',
      help: 'items waiting in the background queues (webhook deliveries, campaign contacts)',
      labelNames: ['queue'],
      registers,
      collect() {
        for (const [queue, n] of Object.entries(opts.queues?.() ?? {})) this.set({ queue }, n)
      },
    })
  }

  /** Starts the event-loop lag probe (a timer measuring its own lateness). */
  start(): void {
    if (this.lagTimer) return
    let due = performance.now() + 20
    this.lagTimer = setInterval(() => {
      const now = performance.now()
      this.lagMaxMs = Math.max(this.lagMaxMs, now - due)
      due = now + 20
    }, 20)
    this.lagTimer.unref?.()
  }

  stop(): void {
    clearInterval(this.lagTimer)
    this.lagTimer = undefined
  }

  sip(direction: 'in' | 'out', msg: { kind: 'request'; method: string } | { kind: 'response'; status: number; method: string }): void {
    if (msg.kind === 'request') this.sipRequests.inc({ direction, method: knownMethod(msg.method) })
    else this.sipResponses.inc({ direction, method: knownMethod(msg.method), code: String(msg.status) })
  }

  /** A SIP stream connection refused or closed by a connection limit (label values are the transport's fixed set). */
  sipConnectionRefused(transport: 'tcp' | 'tls', reason: string): void {
    this.sipConnectionsRefused.inc({ transport, reason })
  }

  /** A SIP request refused (label values are the SIP layer's fixed set, refusals.ts). */
  sipRequestRefused(reason: string): void {
    this.sipRefused.inc({ reason })
  }

  /** A call refused before it started (label values are the refusal policy's fixed set). */
  callRefused(kind: string, reason: string): void {
    this.callsRefused.inc({ kind, reason })
  }

  /** An answered call ended without one frame of agent audio. */
  callAgentSilent(direction: CallDirection): void {
    this.agentSilent.inc({ direction })
  }

  callEnded(call: EndedCall): void {
    this.callsTotal.inc({ direction: call.direction, outcome: call.outcome })
    for (const t of call.turns) {
      for (const key of Object.keys(this.turn) as (keyof TurnLatencies)[]) {
        const v = t[key]
        if (v !== null && Number.isFinite(v)) this.turn[key].observe(v)
      }
    }
    if (call.rtp) {
      this.rtpPackets.inc({ direction: 'in' }, call.rtp.received)
      this.rtpPackets.inc({ direction: 'out' }, call.rtp.sent)
      this.rtpLost.inc(call.rtp.lost)
      this.rtpJitter.observe(call.rtp.jitterMs)
      const srtp = call.rtp.srtp
      if (srtp) {
        this.srtpDropped.inc({ reason: 'auth' }, srtp.authFailures)
        this.srtpDropped.inc({ reason: 'replay' }, srtp.replays)
        this.srtpDropped.inc({ reason: 'malformed' }, srtp.malformed)
      }
    }
  }

  /** A call worker's statistics of the last second (undefined: the worker stopped). */
  callWorkerStats(worker: string, stats: { calls: number; loopLagMaxMs: number; engines?: Record<string, boolean> } | undefined): void {
    if (!stats) return void this.workers.delete(worker)
    const w = this.workers.get(worker)
    this.workers.set(worker, { calls: stats.calls, lagMaxMs: Math.max(w?.lagMaxMs ?? 0, stats.loopLagMaxMs), engines: stats.engines ?? {} })
    this.mediaLagMs = Math.max(this.mediaLagMs, stats.loopLagMaxMs)
  }

  /** The largest call worker timer lateness since the last ask (how late the calls' media ran), for admission; resets. */
  takeMediaLag(): number {
    const lag = this.mediaLagMs
    this.mediaLagMs = 0
    return lag
  }

  callWorkerFailed(calls: number): void {
    this.workerFailures.inc()
    this.workerFailedCalls.inc(calls)
  }

  providerError(provider: string): void {
    this.providerErrors.inc({ provider })
  }

  http(method: string, route: string, status: number, ms: number): void {
    this.httpSeries.record(method, route, status, ms)
  }

  text(): Promise<string> {
    return this.registry.metrics()
  }

  get contentType(): string {
    return this.registry.contentType
  }
}

const METHODS = new Set(['INVITE', 'ACK', 'BYE', 'CANCEL', 'OPTIONS', 'REGISTER', 'REFER', 'NOTIFY', 'INFO', 'UPDATE', 'PRACK', 'SUBSCRIBE', 'MESSAGE', 'PUBLISH'])
/** A peer may send any token as a method: unknown ones share one label value. */
const knownMethod = (m: string) => (METHODS.has(m) ? m : 'other')
