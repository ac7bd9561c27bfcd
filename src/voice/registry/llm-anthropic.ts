// Anthropic Messages, streamed with tool calls. LLM_PROVIDER=auto prefers it when it has a key.
import { AnthropicLlm } from '../llm/anthropic.ts'
import { connOptions, required } from '../settings.ts'
import { type LlmEntry, remote } from './entry.ts'

export const anthropicLlm: LlmEntry = {
  id: 'anthropic',
  kind: 'llm',
  name: 'Anthropic',
  runs: 'remote',
  auto: (cfg) => cfg.ANTHROPIC_API_KEY !== '',
  needs: 'ANTHROPIC_API_KEY',
  defaultModel: (cfg) => cfg.ANTHROPIC_MODEL,
  endpoint: (cfg) => cfg.ANTHROPIC_BASE_URL,
  fromConfig: (cfg, o) =>
    remote(
      new AnthropicLlm({
        baseUrl: cfg.ANTHROPIC_BASE_URL,
        apiKey: required('ANTHROPIC_API_KEY', cfg.ANTHROPIC_API_KEY, 'for LLM_PROVIDER=anthropic'),
        model: o.model ?? cfg.ANTHROPIC_MODEL,
        conn: connOptions(cfg),
      }),
    ),
}
