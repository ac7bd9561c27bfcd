// Can the configured cloud providers be reached? A TCP connect to each configured URL's host and
// port, at start and every PROVIDER_PROBE_MS: no request is sent, so no credential leaves and
// nothing is billed. Only URLs the configuration makes the appliance use are probed (the offline
// default probes nothing). An unreachable provider makes /ready "degraded" and marks agents
// that need it as unable to converse, instead of a caller waiting for the apology.
import net from 'node:net'
import type { Config } from '../../platform/config/index.ts'
import type { Logger } from '../../platform/log.ts'
import { availableVoices, type ProviderEntry, providersOf, servedLlms } from '../../realtime/voice/registry/index.ts'

export type ProbeKind = 'llm' | 'stt' | 'tts' | 'workflow-llm'

export interface ProbeTarget {
  kind: ProbeKind
  /** The provider's registry id, as agents and the serving rules name it: openai, anthropic, deepgram, elevenlabs. */
  provider: string
  /** The configured URL without credentials, query or fragment. */
  url: string
  host: string
  port: number
}

export interface ProbeFailure extends ProbeTarget {
  error: string
}

/** The endpoints this configuration sends calls to: the served LLM backends, the default STT, the voices agents may use. */
export function probeTargets(cfg: Config): ProbeTarget[] {
  const out: ProbeTarget[] = []
  const add = (kind: ProbeKind, provider: string, raw: string) => {
    const t = target(kind, provider, raw)
    if (t && !out.some((o) => o.kind === kind && o.url === t.url)) out.push(t)
  }
  const remote = (kind: ProbeKind, entries: ProviderEntry[]) => {
    for (const e of entries) if (e.endpoint) add(kind, e.id, e.endpoint(cfg))
  }
  remote('llm', servedLlms(cfg))
  remote('stt', sttToProbe(cfg))
  remote('tts', availableVoices(cfg))
  if (cfg.LLM_WORKFLOW_BASE_URL) add('workflow-llm', 'openai', cfg.LLM_WORKFLOW_BASE_URL)
  return out
}

/** The STT calls will use, when STT_PROVIDER names it or auto is sure to pick it. */
function sttToProbe(cfg: Config): ProviderEntry[] {
  const stts = providersOf('stt')
  if (cfg.STT_PROVIDER !== 'auto') return stts.filter((e) => e.id === cfg.STT_PROVIDER)
  // whether an on-device STT would be picked is known only by loading it: auto is sure of a
  // remote one only when it is preferred to all of them
  for (const e of stts) {
    if (e.runs === 'resident') return []
    if (e.auto?.(cfg)) return [e]
  }
  return []
}

function target(kind: ProbeKind, provider: string, raw: string): ProbeTarget | undefined {
  let u: URL
  try {
    u = new URL(raw)
  } catch {
    return undefined
  }
  const secure = u.protocol === 'https:' || u.protocol === 'wss:'
  const port = u.port ? Number(u.port) : secure ? 443 : 80
  const host = u.hostname.replace(/^\[|\]$/g, '')
  return { kind, provider, url: `${u.protocol}//${u.host}${u.pathname.replace(/\/$/, '')}`, host, port }
}

/** One TCP connect; resolves with the reason it failed, or undefined when it was accepted. */
export function probeOnce(t: ProbeTarget, timeoutMs: number): Promise<string | undefined> {
  return new Promise((res) => {
    const sock = net.connect({ host: t.host, port: t.port })
    const done = (problem?: string) => {
      clearTimeout(timer)
      sock.destroy()
      res(problem)
    }
    const timer = setTimeout(() => done(`no answer within ${timeoutMs} ms`), timeoutMs)
    sock.once('connect', () => done())
    sock.once('error', (err: Error & { code?: string }) => done(err.code === 'ECONNREFUSED' ? 'connection refused' : (err.code ?? err.message)))
  })
}

/** Probes every target now and then every `intervalMs` (0: at start only); the failures of the latest round. */
export class ProviderProbes {
  private failures: ProbeFailure[] = []
  private timer: ReturnType<typeof setTimeout> | undefined
  private stopped = false
  private round: Promise<void> = Promise.resolve()

  constructor(
    readonly targets: ProbeTarget[],
    private readonly opts: { intervalMs: number; timeoutMs: number; log: Logger },
  ) {}

  start(): void {
    if (this.targets.length) this.run()
  }

  /** Resolves when the round in progress has finished (tests, and the first round at start). */
  settled(): Promise<void> {
    return this.round
  }

  get down(): ProbeFailure[] {
    return this.failures
  }

  /** For /ready and agent readiness: one sentence per unreachable provider. */
  problems(): string[] {
    return this.failures.map((f) => describeFailure(f))
  }

  stop(): void {
    this.stopped = true
    clearTimeout(this.timer)
  }

  private run(): void {
    this.round = (async () => {
      const results = await Promise.all(this.targets.map(async (t) => ({ t, error: await probeOnce(t, this.opts.timeoutMs) })))
      const before = new Set(this.failures.map((f) => `${f.kind} ${f.url}`))
      this.failures = results.filter((r) => r.error !== undefined).map((r) => ({ ...r.t, error: r.error! }))
      for (const { t, error } of results) {
        const key = `${t.kind} ${t.url}`
        if (error !== undefined && !before.has(key)) this.opts.log.warn({ kind: t.kind, provider: t.provider, url: t.url, error }, 'provider cannot be reached')
        if (error === undefined && before.has(key)) this.opts.log.info({ kind: t.kind, provider: t.provider, url: t.url }, 'provider reachable again')
      }
      if (!this.stopped && this.opts.intervalMs > 0) this.timer = setTimeout(() => this.run(), this.opts.intervalMs)
    })()
  }
}

export function describeFailure(f: ProbeFailure): string {
  return `${f.kind} provider ${f.provider} at ${f.url} cannot be reached (${f.error})`
}
