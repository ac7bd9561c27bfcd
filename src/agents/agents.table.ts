export type AgentType = 'inbound' | 'outbound'
export type AgentRole = 'reception' | 'booking' | 'sales' | 'followup'

/** welcome, voice, enabled_tools and tool_configs hold JSON text. */
export interface AgentTable {
  id: string
  workspace_id: string
  name: string
  prompt_draft: string
  prompt_published: string
  welcome: string
  voice: string
  llm_model: string
  language: string
  enabled_tools: string
  tool_configs: string
  /** '' when the agent has no webhook. */
  webhook_url: string
  agent_type: AgentType
  role: AgentRole
  /** 'fast', 'normal' or 'patient', or the base silence in ms as decimal digits ('800'). */
  endpointing: string
  /** Grows by one on every change; a call's snapshot records the version it ran. */
  version: number
  published_at: string | null
  created_at: string
  updated_at: string
}
