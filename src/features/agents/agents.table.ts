import type { AgentData } from './agents.model.ts'

export type { AgentRole, AgentType } from './agents.model.ts'

/** The column each of the agent's settable fields is stored in. */
export const AGENT_COLUMNS = {
  name: 'name',
  promptDraft: 'prompt_draft',
  promptPublished: 'prompt_published',
  welcome: 'welcome',
  voice: 'voice',
  llmModel: 'llm_model',
  language: 'language',
  enabledTools: 'enabled_tools',
  toolConfigs: 'tool_configs',
  webhookUrl: 'webhook_url',
  agentType: 'agent_type',
  role: 'role',
  endpointing: 'endpointing',
  maxDurationSec: 'max_duration_sec',
  knowledgeBaseIds: 'knowledge_base_ids',
  knowledgeAutoSearch: 'knowledge_auto_search',
  vocabulary: 'vocabulary',
} as const satisfies Record<keyof AgentData, string>

/**
 * A field that is not text is stored as text: welcome, voice, enabled_tools, tool_configs and
 * knowledge_base_ids and vocabulary as JSON, endpointing as its preset name or its milliseconds in
 * decimal digits ('800'), max_duration_sec as decimal digits ('' when the default applies),
 * knowledge_auto_search as 'true' or 'false'.
 */
type Stored<T> = [T] extends [string] ? T : string

/** The settable fields' columns ('' in webhook_url when the agent has no webhook). */
type SettingColumns = { [K in keyof AgentData as (typeof AGENT_COLUMNS)[K]]: Stored<AgentData[K]> }

export interface AgentTable extends SettingColumns {
  id: string
  workspace_id: string
  /** Grows by one on every change; a call's snapshot records the version it ran. */
  version: number
  published_at: string | null
  created_at: string
  updated_at: string
}
