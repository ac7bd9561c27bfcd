// Configuration keys of earlier releases, still read under the names that replaced them (the
// language model's keys became one LLM_* family). A source that sets both names gets the new one.

/** Each old key and the key it now sets. */
export const RENAMED_KEYS: Readonly<Record<string, string>> = {
  ANTHROPIC_BASE_URL: 'LLM_ANTHROPIC_BASE_URL',
  ANTHROPIC_API_KEY: 'LLM_ANTHROPIC_API_KEY',
  ANTHROPIC_MODEL: 'LLM_ANTHROPIC_MODEL',
  WORKFLOW_LLM_BASE_URL: 'LLM_WORKFLOW_BASE_URL',
  WORKFLOW_LLM_API_KEY: 'LLM_WORKFLOW_API_KEY',
  WORKFLOW_LLM_MODEL: 'LLM_WORKFLOW_MODEL',
  WORKFLOW_LLM_TIMEOUT_MS: 'LLM_WORKFLOW_TIMEOUT_MS',
}

/** The source with every old key's value under its new name; `used` lists the old keys it set. */
export function withRenamedKeys<T>(source: Record<string, T>): { values: Record<string, T>; used: string[] } {
  const values = { ...source }
  const used: string[] = []
  for (const [old, now] of Object.entries(RENAMED_KEYS)) {
    if (source[old] === undefined) continue
    used.push(old)
    if (source[now] === undefined) values[now] = source[old]
    delete values[old]
  }
  return { values, used }
}

const usedBy = new WeakMap<object, string[]>()

export function rememberRenamedKeys(config: object, used: string[]): void {
  usedBy.set(config, [...new Set(used)])
}

/** `to` (a settled copy of `from`) was read with the same old keys. */
export function copyRenamedKeys(from: object, to: object): void {
  const used = usedBy.get(from)
  if (used) usedBy.set(to, used)
}

/** For the start-up log: one line per old key the configuration was read with, naming its new key. */
export function renamedKeyNotes(config: object): string[] {
  return (usedBy.get(config) ?? []).map((old) => `${old} is now ${RENAMED_KEYS[old]}; the old name still works`)
}
