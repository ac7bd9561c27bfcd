// The agent's enabled tools as the LLM sees and runs them during a call (end_call is built in;
// knowledge_search comes with the agent's knowledge bases).
import type { AgentSnapshot } from '../../agents/index.ts'
import { httpTool, type Schema, type SessionTool } from '../../../realtime/voice/session/index.ts'
import { knowledgeTool, type KnowledgePassage, type KnowledgeQueryOptions } from './knowledge-tool.ts'

export type { KnowledgePassage, KnowledgeQueryOptions }

/** What the tools may do to the live call. */
export interface CallControls {
  /** Blind transfer; resolves with how it went once the peer accepted, refused or failed. */
  transfer(target: string): Promise<TransferOutcome>
  sendDtmf(digits: string): void
  /** Puts the other party's number on the workspace's do-not-call list. */
  optOut(): Promise<void>
  /** The best passages of the agent's knowledge bases for `query`, best first. */
  searchKnowledge(query: string, opts: KnowledgeQueryOptions): Promise<KnowledgePassage[]>
}


export type TransferOutcome = { ok: true; via: 'refer' | 'bridge' } | { ok: false; reason: TransferFailure }
export type TransferFailure = 'refused' | 'no_answer' | 'busy' | 'failed' | 'invalid_target' | 'call_not_active'

interface TransferConfig {
  destinations: { number: string; description?: string }[]
  message?: string
}

const DEFAULT_HTTP_PARAMETERS: Schema = { type: 'object', properties: {}, additionalProperties: true }

export function sessionTools(agent: AgentSnapshot, controls: CallControls, opts: { allowPrivate: boolean }): SessionTool[] {
  const tools: SessionTool[] = agent.knowledgeBaseIds?.length ? [knowledgeTool(controls.searchKnowledge)] : []
  for (const name of agent.enabledTools) {
    const config = Object.hasOwn(agent.toolConfigs, name) ? agent.toolConfigs[name] : undefined
    if (name === 'transfer_call' && config) tools.push(transferTool(config as TransferConfig, controls))
    else if (name === 'opt_out') tools.push(optOutTool(controls))
    else if (name === 'send_dtmf') tools.push(dtmfTool(((config ?? {}) as { allowedDigits?: string }).allowedDigits ?? '0123456789*#', controls))
    else if (name === 'http_request' && config) {
      const c = config as { url: string; method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE'; description: string; headers: Record<string, string>; timeoutMs: number; parameters?: Schema }
      tools.push(
        httpTool(
          { name: 'http_request', description: c.description, parameters: c.parameters ?? DEFAULT_HTTP_PARAMETERS, url: c.url, method: c.method, headers: c.headers, timeoutMs: c.timeoutMs },
          { allowPrivate: opts.allowPrivate },
        ),
      )
    }
  }
  return tools
}

function transferTool(config: TransferConfig, controls: CallControls): SessionTool {
  const list = config.destinations.map((d, i) => `${i}: ${d.number}${d.description ? ` (${d.description})` : ''}`).join('; ')
  return {
    spec: {
      name: 'transfer_call',
      description: `Transfer the caller to one of these destinations: ${list}. Tell the caller first.`,
      parameters: {
        type: 'object',
        properties: { destination: { type: 'integer', minimum: 0, maximum: config.destinations.length - 1, description: 'index in the list' } },
        required: ['destination'],
      },
    },
    timeoutMs: 40_000,
    afterSpeech: true,
    async run(args) {
      const index = (args as { destination?: unknown }).destination
      const dest = typeof index === 'number' ? config.destinations[index] : undefined
      if (!dest) return JSON.stringify({ error: 'invalid_target', message: `destination must be 0..${config.destinations.length - 1}` })
      const outcome = await controls.transfer(dest.number)
      return JSON.stringify(outcome.ok ? { transferred: true, via: outcome.via } : { transferred: false, error: outcome.reason })
    },
  }
}

function optOutTool(controls: CallControls): SessionTool {
  return {
    spec: {
      name: 'opt_out',
      description: 'The person asks not to be called again. Their number goes on the do-not-call list; confirm it to them.',
      parameters: { type: 'object', properties: {} },
    },
    async run() {
      await controls.optOut()
      return JSON.stringify({ optedOut: true })
    },
  }
}

function dtmfTool(allowed: string, controls: CallControls): SessionTool {
  return {
    spec: {
      name: 'send_dtmf',
      description: `Press keys on the phone (for menus). Allowed keys: ${allowed}`,
      parameters: { type: 'object', properties: { digits: { type: 'string', description: 'the keys to press, in order' } }, required: ['digits'] },
    },
    async run(args) {
      const digits = String((args as { digits?: unknown }).digits ?? '')
      if (!digits || [...digits].some((d) => !allowed.includes(d))) return JSON.stringify({ error: `digits must be among ${allowed}` })
      controls.sendDtmf(digits)
      return JSON.stringify({ sent: digits })
    },
  }
}
