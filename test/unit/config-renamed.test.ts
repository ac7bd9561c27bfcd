// The language model's keys are one LLM_* family; the names of earlier releases (ANTHROPIC_*,
// WORKFLOW_LLM_*) still configure the same thing, each under its new name.
import { describe, expect, test } from 'bun:test'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { CONFIG_KEYS, loadConfig, RENAMED_KEYS, renamedKeyNotes } from '../../src/platform/config/index.ts'
import { workflowLlm } from '../../src/realtime/voice/registry/index.ts'
import { tempDir } from '../helpers/tmp.ts'

const OLD = {
  ANTHROPIC_BASE_URL: 'http://127.0.0.1:9/anthropic',
  ANTHROPIC_API_KEY: 'ak-old',
  ANTHROPIC_MODEL: 'claude-old',
  WORKFLOW_LLM_BASE_URL: 'http://127.0.0.1:9/v1',
  WORKFLOW_LLM_API_KEY: 'sk-old',
  WORKFLOW_LLM_MODEL: 'llama-old',
  WORKFLOW_LLM_TIMEOUT_MS: '2500',
}

describe('renamed LLM keys', () => {
  test('each old key of the environment sets its new LLM_* key', () => {
    const c = loadConfig(OLD)
    expect([c.LLM_ANTHROPIC_BASE_URL, c.LLM_ANTHROPIC_API_KEY, c.LLM_ANTHROPIC_MODEL]).toEqual(['http://127.0.0.1:9/anthropic', 'ak-old', 'claude-old'])
    expect([c.LLM_WORKFLOW_BASE_URL, c.LLM_WORKFLOW_API_KEY, c.LLM_WORKFLOW_MODEL, c.LLM_WORKFLOW_TIMEOUT_MS]).toEqual(['http://127.0.0.1:9/v1', 'sk-old', 'llama-old', 2500])
    expect(Object.keys(RENAMED_KEYS).sort()).toEqual(Object.keys(OLD).sort())
    for (const now of Object.values(RENAMED_KEYS)) expect(now in CONFIG_KEYS).toBe(true)
  })

  test('the config file may use the old names too; the environment still wins over the file, and a new name over an old one', () => {
    const file = join(tempDir('cfg-'), 'appliance.config.json')
    writeFileSync(file, JSON.stringify({ ANTHROPIC_API_KEY: 'ak-file', WORKFLOW_LLM_MODEL: 'file-model' }))
    const fromFile = loadConfig({ CONFIG_FILE: file })
    expect([fromFile.LLM_ANTHROPIC_API_KEY, fromFile.LLM_WORKFLOW_MODEL]).toEqual(['ak-file', 'file-model'])
    const c = loadConfig({ CONFIG_FILE: file, ANTHROPIC_API_KEY: 'ak-env', LLM_WORKFLOW_MODEL: 'new', WORKFLOW_LLM_MODEL: 'old' })
    expect([c.LLM_ANTHROPIC_API_KEY, c.LLM_WORKFLOW_MODEL]).toEqual(['ak-env', 'new'])
  })

  test('the start-up log names the new key of each old one the configuration used, and nothing when none was', () => {
    expect(renamedKeyNotes(loadConfig({ ANTHROPIC_API_KEY: 'ak', LLM_MODEL: 'x' }))).toEqual(['ANTHROPIC_API_KEY is now LLM_ANTHROPIC_API_KEY; the old name still works'])
    expect(renamedKeyNotes(loadConfig({ LLM_ANTHROPIC_API_KEY: 'ak' }))).toEqual([])
  })

  test('docs/configuration.md documents every old name as an alias of its new key', async () => {
    const readme = await Bun.file(join(import.meta.dir, '..', '..', 'docs', 'configuration.md')).text()
    for (const [old, now] of Object.entries(RENAMED_KEYS)) expect(readme).toContain(`| \`${old}\` | \`${now}\` |`)
  })
})

describe("workflows' language model from the configuration", () => {
  test('workflows get the LLM of LLM_PROVIDER, whichever provider it is, with LLM_WORKFLOW_MODEL when set', () => {
    const claude = workflowLlm(loadConfig({ LLM_PROVIDER: 'anthropic', LLM_ANTHROPIC_API_KEY: 'ak' }))
    expect([claude?.provider, claude?.model]).toEqual(['anthropic-llm', CONFIG_KEYS.LLM_ANTHROPIC_MODEL.default])
    const other = workflowLlm(loadConfig({ LLM_PROVIDER: 'openai', LLM_API_KEY: 'sk', LLM_WORKFLOW_MODEL: 'gpt-4.1-mini' }))
    expect([other?.provider, other?.model]).toEqual(['openai-llm', 'gpt-4.1-mini'])
  })

  test('no LLM means none for workflows, unless they have a server of their own (the old WORKFLOW_LLM_* keys included)', () => {
    expect(workflowLlm(loadConfig({ LLM_PROVIDER: 'none' }))).toBeUndefined()
    expect(workflowLlm(loadConfig({}))).toBeUndefined()
    const own = workflowLlm(loadConfig({ LLM_PROVIDER: 'anthropic', LLM_ANTHROPIC_API_KEY: 'ak', WORKFLOW_LLM_BASE_URL: 'http://127.0.0.1:11434/v1', WORKFLOW_LLM_MODEL: 'llama3.2' }))
    expect([own?.provider, own?.model]).toEqual(['openai-llm', 'llama3.2'])
  })
})
