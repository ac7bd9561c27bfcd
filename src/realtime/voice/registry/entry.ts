// What a provider of speech or language is to the rest of the appliance: one entry per provider
// (a file of this folder), listed once in index.ts. Engines, per-call engines, readiness, the
// providers API, probes and metrics ask the entry; nothing recognises a provider by its class.
import type { Config } from '../../../platform/config/index.ts'
import type { Llm } from '../llm/contract.ts'
import type { Stt, SttStreamOptions } from '../stt/contract.ts'
import type { Tts } from '../tts/contract.ts'
import type { TtsPrice } from '../turn/cost.ts'
import type { VadModel } from '../vad/contract.ts'

export type ProviderKind = 'vad' | 'stt' | 'tts' | 'llm'

export interface EngineOf {
  vad: VadModel
  stt: Stt
  tts: Tts
  llm: Llm
}

/** What an agent (and the call it is on) asks beyond the configuration's defaults. */
export interface OverridesOf {
  vad: Record<string, never>
  stt: Record<string, never>
  /** The call's rate (every frame comes at it), the agent's voice id and speaking rate (1 is normal). */
  tts: { sampleRate: number; voiceId?: string; speed?: number }
  /** The agent's model, named as its backend takes it; `endpoint` replaces the configured server and key. */
  llm: { model?: string; endpoint?: { baseUrl: string; apiKey: string } }
}

/** What a built engine reports now. */
export interface ProviderState {
  /** In memory now; undefined for engines that never unload while idle (remote ones among them). */
  loaded?: boolean
  /** Why it does not work as configured, as /ready lists it; undefined while it does. */
  problem?: string
}

/** A resident engine that unloads while idle (see IdleRelease). */
export interface IdleEngine {
  /** Keeps it loaded (loading it now) until the returned function is called; the idle countdown starts when the last holder lets go. */
  hold(): () => void
  /** As hold(), without counting as use: the countdown runs on, and the engine goes once it has run out and the keeper lets go. */
  keep(): () => void
  /** Resolves once what is loading now has loaded, or failed (state().problem then says why). */
  ready(): Promise<void>
  /** Unloads it now unless something holds or keeps it; resolves once it is out of memory. */
  release(): Promise<void>
}

/** A built engine with what the appliance needs to know of it beyond its contract. */
export interface Provided<T> {
  readonly engine: T
  /** Start-up log lines saying what runs (what was found, what replaced it); without them the log says "<KIND>: <id>". */
  readonly notes?: readonly string[]
  state(): ProviderState
  /**
   * Resident engines that unload while idle. `shared`: their threads serve the call workers too
   * (held by the main thread for them); otherwise each thread that runs calls has its own.
   */
  readonly idle?: IdleEngine & { readonly shared: boolean }
  /** Ends what runs outside this process's threads; resolves once it has exited. */
  close?(): Promise<void>
  /** The engine for callers speaking `language` (BCP 47), with that language on every stream. */
  forLanguage?(language: string): T
}

interface EntryBase<K extends ProviderKind> {
  /** As the configuration and agents name it (STT_PROVIDER=deepgram, voice.provider 'flite'). */
  readonly id: string
  readonly kind: K
  /** As GET /api/providers shows it. */
  readonly name: string
  /** resident: runs on this machine and holds its model or threads in memory; remote: a service reached over the network. */
  readonly runs: 'resident' | 'remote'
  /** Builds the engine; a ConfigError names the key that is missing or wrong. */
  fromConfig(cfg: Config, overrides: OverridesOf[K]): Provided<EngineOf[K]> | Promise<Provided<EngineOf[K]>>
  /** remote: the URL its requests go to, which the start-up probes try. */
  endpoint?(cfg: Config): string
}

export type VadEntry = EntryBase<'vad'>

/**
 * What a speech provider bills: nothing (it runs on this machine), or by the model the
 * configuration runs, at the list price (USD) of each model known; a model not listed has no
 * price, which call records say (cost.unpriced).
 */
export type Pricing<P> = 'free' | { model(cfg: Config): string; prices: Readonly<Record<string, P>> }

interface SpeechEntry {
  /** The name its engines give themselves (`deepgram-stt`), which usage, logs and metrics carry. */
  readonly engineName: string
}

export interface SttEntry extends EntryBase<'stt'>, SpeechEntry {
  /** Per minute of audio sent to it. */
  readonly pricing: Pricing<number>
  /** STT_PROVIDER=auto may pick it: this configuration and machine give it what it needs. */
  auto?(cfg: Config): boolean
}

export interface TtsEntry extends EntryBase<'tts'>, SpeechEntry {
  readonly pricing: Pricing<TtsPrice>
  /** Voice ids as listed: all of them when `knowsVoice` is exact, examples for cloud voices. */
  readonly voices: readonly string[]
  /** Agents may speak with it on this appliance now (a cloud voice needs its key). */
  available(cfg: Config): boolean
  /** Whether `voiceId` can be one of its voices (cloud providers take any id their account has). */
  knowsVoice(voiceId: string): boolean
  /** The voice TTS_PROVIDER=<id> speaks with, and a new agent gets. */
  defaultVoiceId(cfg: Config): string
  /** At once: a call asks for its voice at its rate while it is being answered. */
  fromConfig(cfg: Config, overrides: OverridesOf['tts']): Provided<Tts>
}

export interface LlmEntry extends EntryBase<'llm'> {
  /** LLM_PROVIDER=auto serves it: the configuration has what it needs. */
  auto(cfg: Config): boolean
  /** What the configuration lacks when it cannot serve it (for readiness problems). */
  readonly needs: string
  /** The model LLM_PROVIDER=<id> runs, and a new agent gets. */
  defaultModel(cfg: Config): string
  /** At once: a call builds its agent's model while it is being answered. */
  fromConfig(cfg: Config, overrides: OverridesOf['llm']): Provided<Llm>
}

export type ProviderEntry = VadEntry | SttEntry | TtsEntry | LlmEntry

export type EntryOf<K extends ProviderKind> = Extract<ProviderEntry, { kind: K }>

/** What Provided.idle says of `engine`. */
export const unloadsWhileIdle = (engine: IdleEngine, shared: boolean): Provided<unknown>['idle'] => ({
  shared,
  hold: () => engine.hold(),
  keep: () => engine.keep(),
  ready: () => engine.ready(),
  release: () => engine.release(),
})

/** A remote engine: nothing in memory to report, nothing to hold. */
export const remote = <T>(engine: T, forLanguage?: (language: string) => T): Provided<T> => ({ engine, state: () => ({}), forLanguage })

/** The STT with `vocabulary` on every stream it opens (the agent's words, for recognisers that take them). */
export function withVocabulary(stt: Stt, vocabulary: readonly string[]): Stt {
  if (!vocabulary.length) return stt
  return {
    provider: stt.provider,
    capabilities: stt.capabilities,
    stream: (opts: SttStreamOptions = {}) => stt.stream({ vocabulary, ...opts }),
  }
}

/** The STT with `language` on every stream it opens. */
export function withLanguage(stt: Stt, language: string): Stt {
  return {
    provider: stt.provider,
    capabilities: stt.capabilities,
    stream: (opts: SttStreamOptions = {}) => stt.stream({ language, ...opts }),
  }
}
