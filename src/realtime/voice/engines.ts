import type { Config } from '../../platform/config/index.ts'
import type { Logger } from '../../platform/log.ts'
import type { Serving } from './registry/index.ts'
import { type AgentVoice, type CallEngines, callEnginesFactory } from './call-engines.ts'
import type { Llm } from './llm/index.ts'
import { choose, chosenName, type Provided, providerOf } from './registry/index.ts'
import { type VoiceSettings, voiceSettings } from './settings.ts'
import type { Stt } from './stt/index.ts'
import { trimmedTts, type Tts } from './tts/index.ts'
import type { VadModel } from './vad/index.ts'
import { IdleRelease } from './idle.ts'
import { trimHeap } from './stt/pocketsphinx-ffi.ts'

/**
 * Which of the engines that unload while idle: `threads` those whose threads the call workers
 * share (flite, pocketsphinx), `vad` those each thread that runs calls has of its own (the
 * Silero host), `all` both.
 */
export type HoldScope = 'all' | 'threads' | 'vad'

export interface VoiceEngines {
  vad: VadModel
  /** Undefined when no STT is configured or installed: calls then only understand DTMF. */
  stt: Stt | undefined
  /** Undefined when no LLM is configured: agents run their workflow. */
  llm: Llm | undefined
  /** A TTS producing audio at the call's rate. */
  tts(sampleRate: number): Tts
  settings: VoiceSettings
  /** What was chosen and why, for the start-up log. */
  notes: string[]
  /** Engines that fell back from what was configured or stopped working, each with the reason; empty when all is as asked. */
  problems(): string[]
  /** What the configuration can serve (LLM backends, voice providers). */
  serving: Serving
  /** The engines of one call, from its agent's model, voice and language. */
  forAgent(agent: AgentVoice, sampleRate: number): CallEngines
  /**
   * Keeps the offline engines loaded for a call (loading those released while idle) until the
   * returned function is called; ENGINE_IDLE_RELEASE_MS after the last call they are unloaded.
   * `scope` says which (see HoldScope).
   */
  hold(scope?: HoldScope): () => void
  /**
   * As hold(), without counting as use (IdleRelease.keep): a call worker sharing the engine
   * threads while it runs. The countdown from the last call runs on meanwhile, so the engines go
   * with the worker when it stops for want of calls, not ENGINE_IDLE_RELEASE_MS after that.
   */
  keep(scope?: HoldScope): () => void
  /** Ends what runs outside this process's threads (the Silero host) now; resolves once it has exited. */
  close(): Promise<void>
  /** The offline engines that unload while idle (those of `scope`), by provider id, and whether each is in memory now. */
  loaded(scope?: HoldScope): Record<string, boolean>
}

export interface VoiceEngineOptions {
  /** Where the idle release is logged. */
  log?: Logger
  /**
   * Loads each offline engine once, so that a broken one shows in problems() (/ready), then,
   * once all have loaded, unloads them until the first call needs them: the main thread, which
   * may wait long for its first call. A call worker starts for a call and keeps what it loads.
   * No effect with ENGINE_IDLE_RELEASE_MS=0, which keeps the engines loaded.
   */
  unloadAfterStart?: boolean
}

/** Picks and builds the engines named by config (see registry/); fails with a ConfigError on a bad choice. */
export async function createVoiceEngines(cfg: Config, opts: VoiceEngineOptions = {}): Promise<VoiceEngines> {
  const settings = voiceSettings(cfg)
  const vad = await choose('vad', cfg)
  const stt = await choose('stt', cfg)
  const llm = await choose('llm', cfg)
  const ttsEntry = providerOf('tts', chosenName('tts', cfg))!
  const notes = [...vad.notes, ...stt.notes, ...llm.notes, `TTS: ${ttsEntry.id}`]

  /** The default engines, each with its provider's id: what problems, hold and loaded report on. */
  const built: [string, Provided<unknown>][] = [[vad.entry!.id, vad.provided!]]
  if (stt.entry && stt.provided) built.push([stt.entry.id, stt.provided])
  // the engines themselves stay here for their state and hold; calls hear them trimmed of their
  // leading and trailing silence
  const ttsByRate = new Map<number, Provided<Tts>>()
  const engineTts = (sampleRate: number): Provided<Tts> => {
    let t = ttsByRate.get(sampleRate)
    if (!t) {
      ttsByRate.set(sampleRate, (t = ttsEntry.fromConfig(cfg, { sampleRate })))
      built.push([ttsEntry.id, t])
    }
    return t
  }
  const trimmedByRate = new Map<number, Tts>()
  const callTts = (sampleRate: number): Tts => {
    let t = trimmedByRate.get(sampleRate)
    if (!t) trimmedByRate.set(sampleRate, (t = trimmedTts(engineTts(sampleRate).engine)))
    return t
  }
  // built now, so a missing key or a broken install shows at start and not on the first caller
  engineTts(8000)
  const inScope = (p: Provided<unknown>, scope: HoldScope) => p.idle !== undefined && (scope === 'all' || p.idle.shared === (scope === 'threads'))
  const problems = () => {
    const out = [...vad.problems, ...stt.problems]
    for (const [, p] of built) {
      const problem = p.state().problem
      if (problem && !out.includes(problem)) out.push(problem)
    }
    return out
  }
  const { serving, forAgent } = callEnginesFactory(cfg, { tts: callTts, stt: stt.provided })
  const loaded = (scope: HoldScope = 'all') => {
    const out: Record<string, boolean> = {}
    for (const [id, p] of built) {
      const now = inScope(p, scope) ? p.state().loaded : undefined
      if (now !== undefined) out[id] = (out[id] ?? false) || now
    }
    return out
  }
  /** The engines held since the last idle release: what the next one reports. */
  const heldSince = new Set<string>()
  // Each engine also counts down from its own last use (a voice preview holds flite alone); this
  // one counts from the last call and unloads every engine that nothing else holds at once.
  const unloadIdle = async (): Promise<string[]> => {
    // an engine whose own countdown ended first may still be unloading: this waits for it too
    await Promise.all(built.map(([, p]) => p.idle?.release()))
    // one a call holds now stays for the next release to report
    const released = [...heldSince].filter((id) => loaded()[id] === false)
    for (const id of released) heldSince.delete(id)
    if (released.length === 0) return released
    // then the process gives back what the engines and calls left: a full collection, glibc's
    // free pages (Bun's own allocator returns its pages on collection), and JavaScriptCore's
    // free heap pages and compiled code once it is idle (20 MB after 100 calls; the next call
    // compiles its code again, while the engines load)
    Bun.gc(true)
    trimHeap()
    ;(Bun as { shrink?: () => void }).shrink?.()
    return released
  }
  const idleProcess = new IdleRelease(cfg.ENGINE_IDLE_RELEASE_MS, async () => {
    const released = await unloadIdle()
    if (released.length) opts.log?.info({ engines: released, idleMs: cfg.ENGINE_IDLE_RELEASE_MS }, 'voice engines released: no call for ENGINE_IDLE_RELEASE_MS')
  })
  const bracket = (scope: HoldScope, how: 'hold' | 'keep') => {
    const releases: (() => void)[] = [idleProcess[how]()]
    for (const [id, p] of built) {
      if (!inScope(p, scope)) continue
      releases.push(p.idle![how]())
      heldSince.add(id)
    }
    return () => {
      for (const r of releases.splice(0)) r()
    }
  }
  const hold = (scope: HoldScope = 'all') => bracket(scope, 'hold')
  const keep = (scope: HoldScope = 'all') => bracket(scope, 'keep')
  if (opts.unloadAfterStart && cfg.ENGINE_IDLE_RELEASE_MS > 0) {
    // in the background: the start waits as before for the Silero host, not for flite's warm-up
    // (which reports a failure as a problem when it comes); a call meanwhile holds what it needs
    void (async () => {
      await Promise.all(built.map(([, p]) => p.idle?.ready()))
      for (const [id, p] of built) if (p.state().loaded) heldSince.add(id)
      const released = await unloadIdle()
      opts.log?.info({ engines: released }, 'voice engines loaded, then unloaded until the first call')
    })()
  }
  const close = async () => {
    for (const [, p] of built) await p.close?.()
  }
  return { vad: vad.provided!.engine, stt: stt.provided?.engine, llm: llm.provided?.engine, tts: callTts, settings, notes, problems, serving, forAgent, hold, keep, loaded, close }
}
