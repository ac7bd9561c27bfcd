// Any OpenAI-compatible chat-completions server (OpenAI, Groq, vLLM, llama.cpp server, Ollama),
// streamed with tool calls. A self-hosted server needs only its base URL, no key.
import { CONFIG_KEYS } from '../../../platform/config/index.ts'
import { OpenAiLlm } from '../llm/openai.ts'
import { connOptions } from '../settings.ts'
import { type LlmEntry, remote } from './entry.ts'

export const openAiLlm: LlmEntry = {
  id: 'openai',
  kind: 'llm',
  name: 'OpenAI-compatible chat completions',
  runs: 'remote',
  auto: (cfg) => cfg.LLM_API_KEY !== '' || cfg.LLM_BASE_URL !== CONFIG_KEYS.LLM_BASE_URL.default,
  needs: 'LLM_BASE_URL or LLM_API_KEY (an OpenAI-compatible server)',
  defaultModel: (cfg) => cfg.LLM_MODEL,
  endpoint: (cfg) => cfg.LLM_BASE_URL,
  fromConfig: (cfg, o) =>
    remote(new OpenAiLlm({ baseUrl: o.endpoint?.baseUrl ?? cfg.LLM_BASE_URL, apiKey: o.endpoint?.apiKey ?? cfg.LLM_API_KEY, model: o.model ?? cfg.LLM_MODEL, conn: connOptions(cfg) })),
}
