// Which provider of each kind runs by default, from the key that names it (VAD_ENGINE,
// STT_PROVIDER, TTS_PROVIDER, LLM_PROVIDER). With `auto`, the first provider in the registry's
// order that has what it needs and loads; one that fails to load is skipped and /ready says why.
// Workflows' LLM is chosen here too.
import { type Config, ConfigError } from '../../../platform/config/index.ts'
import { withCompletionTimeout } from '../llm/complete.ts'
import type { Llm } from '../llm/contract.ts'
import { oneOf } from '../settings.ts'
import type { EngineOf, EntryOf, OverridesOf, ProviderEntry, ProviderKind, Provided, TtsEntry } from './entry.ts'
import { providerOf, providersOf, servedLlms } from './list.ts'

const KEY = { vad: 'VAD_ENGINE', stt: 'STT_PROVIDER', tts: 'TTS_PROVIDER', llm: 'LLM_PROVIDER' } as const
/** Kinds a call can do without (only DTMF is understood; agents run their workflow), which the key may set to `none` or leave to `auto`. */
const OPTIONAL: readonly ProviderKind[] = ['stt', 'llm']

/** The configuration's name for the kind's provider, checked: a provider id, or `auto`/`none` where the kind allows them. */
export function chosenName(kind: ProviderKind, cfg: Config): string {
  const ids = providersOf(kind).map((e) => e.id)
  return oneOf(KEY[kind], cfg[KEY[kind]], OPTIONAL.includes(kind) ? ['auto', ...ids, 'none'] : ids)
}

export interface Choice<K extends ProviderKind> {
  /** Undefined when the configuration says none or auto finds none. */
  entry: EntryOf<K> | undefined
  provided: Provided<EngineOf[K]> | undefined
  /** What was chosen and why, for the start-up log. */
  notes: string[]
  /** Providers auto skipped because they failed to load, each with the reason. */
  problems: string[]
}

/** Builds the kind's default engine (the one an agent that names none gets); fails with a ConfigError on a bad choice. */
export async function choose<K extends 'vad' | 'stt' | 'llm'>(kind: K, cfg: Config): Promise<Choice<K>> {
  const label = kind.toUpperCase()
  const name = chosenName(kind, cfg)
  const notes: string[] = []
  const problems: string[] = []
  const entries: Exclude<ProviderEntry, TtsEntry>[] = providersOf(kind)
  const candidates = name === 'auto' ? entries.filter((e) => 'auto' in e) : entries.filter((e) => e.id === name)
  for (const entry of candidates) {
    if (name === 'auto' && !('auto' in entry && entry.auto?.(cfg))) continue
    let provided: Provided<unknown>
    try {
      provided = await entry.fromConfig(cfg, {})
    } catch (err) {
      if (name !== 'auto') throw err
      notes.push(`${label}: ${entry.id} skipped (${(err as Error).message})`)
      problems.push(`${label}: ${(err as Error).message}`)
      continue
    }
    notes.push(...(provided.notes?.length ? provided.notes : [`${label}: ${entry.id}`]))
    return { entry: entry as EntryOf<K>, provided: provided as Provided<EngineOf[K]>, notes, problems }
  }
  notes.push(`${label}: none`)
  return { entry: undefined, provided: undefined, notes, problems }
}

/** The preferred LLM backend the configuration serves, built; one that cannot be (a key missing) is passed over, as LLM_PROVIDER=auto does. */
function servedLlm(cfg: Config, overrides: OverridesOf['llm']): Llm | undefined {
  for (const entry of servedLlms(cfg)) {
    try {
      return entry.fromConfig(cfg, overrides).engine
    } catch (err) {
      if (!(err instanceof ConfigError)) throw err
    }
  }
  return undefined
}

/**
 * The model of workflows' intent edges and LLM nodes: the LLM of LLM_PROVIDER, or the
 * OpenAI-compatible server of LLM_WORKFLOW_BASE_URL; LLM_WORKFLOW_MODEL names another model of
 * it. Built from the configuration alone (no request is sent), so the main thread and every call
 * worker build the same one. Each request ends within LLM_WORKFLOW_TIMEOUT_MS: a caller waits on it.
 */
export function workflowLlm(cfg: Config): Llm | undefined {
  const model = cfg.LLM_WORKFLOW_MODEL || undefined
  const llm = cfg.LLM_WORKFLOW_BASE_URL
    ? providerOf('llm', 'openai')!.fromConfig(cfg, { model, endpoint: { baseUrl: cfg.LLM_WORKFLOW_BASE_URL, apiKey: cfg.LLM_WORKFLOW_API_KEY } }).engine
    : servedLlm(cfg, { model })
  return llm && withCompletionTimeout(llm, cfg.LLM_WORKFLOW_TIMEOUT_MS)
}
