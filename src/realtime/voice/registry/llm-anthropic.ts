// Anthropic Messages, streamed with tool calls. LLM_PROVIDER=auto prefers it when it has a key.
import { AnthropicLlm } from '../llm/anthropic.ts'
import { connOptions, required } from '../settings.ts'
import { type LlmEntry, remote } from './entry.ts'

export const anthropicLlm: LlmEntry = {
  id: 'anthropic',
  kind: 'llm',
  name: 'Anthropic',
  runs: 'remote',
  auto: (cfg) => cfg.LLM_ANTHROPIC_API_KEY !== '',
  needs: 'LLM_ANTHROPIC_API_KEY',
  defaultModel: (cfg) => cfg.LLM_ANTHROPIC_MODEL,
  endpoint: (cfg) => cfg.LLM_ANTHROPIC_BASE_URL,
  fromConfig: (cfg, o) =>
    remote(
      new AnthropicLlm({
        baseUrl: o.endpoint?.baseUrl ?? cfg.LLM_ANTHROPIC_BASE_URL,
        apiKey: o.endpoint?.apiKey || required('LLM_ANTHROPIC_API_KEY', cfg.LLM_ANTHROPIC_API_KEY, 'for LLM_PROVIDER=anthropic'),
        model: o.model ?? cfg.LLM_ANTHROPIC_MODEL,
        conn: connOptions(cfg),
      }),
    ),
}
