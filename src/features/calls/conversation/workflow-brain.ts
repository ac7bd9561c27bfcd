// A workflow runs the conversation: its say nodes speak, caller speech and keys drive it.
import type { Brain, BrainHost } from '../../../realtime/voice/session/index.ts'
import type { Llm } from '../../../realtime/voice/llm/index.ts'
import { type KnowledgeSearch, WorkflowCallDriver, WorkflowRunError, type ToolRunner, type WorkflowGraph } from '../../workflows/call/index.ts'
import type { TransferOutcome } from './tools.ts'

export interface WorkflowBrainOptions {
  graph: WorkflowGraph
  variables: Record<string, string>
  llm?: Llm
  maxVisits: number
  fallbackMessage: string
  transfer(target: string): Promise<TransferOutcome>
  /** A tool node calling opt_out. */
  optOut?(): Promise<void>
  /** Answer nodes search the agent's knowledge bases; absent when it links none. */
  knowledge?: KnowledgeSearch
  /** The workflow's final action, for the call record. */
  onFinal?(action: string, nodeId: string): void
}

export function workflowBrain(o: WorkflowBrainOptions): Brain {
  let host: BrainHost | undefined
  const driver = new WorkflowCallDriver(
    o.graph,
    { llm: o.llm, maxVisits: o.maxVisits, today: () => new Date().toISOString().slice(0, 10), tools: callTools(o, () => host), knowledge: o.knowledge },
    {
      say: async (text, _nodeId, last, sources) => {
        await host?.say(text, { interruptible: !last, sources })
      },
      transfer: async (target, nodeId) => {
        o.onFinal?.('transfer', nodeId)
        const outcome = await o.transfer(target)
        if (!outcome.ok) await host?.end('provider_error', o.fallbackMessage)
      },
      hangup: async (action, nodeId) => {
        o.onFinal?.(action, nodeId)
        await host?.end('agent_hangup')
      },
      fail: async () => {
        await host?.end('provider_error', o.fallbackMessage)
      },
    },
  )
  return {
    kind: 'workflow',
    busy: false,
    answersKeys: true,
    start(h) {
      host = h
      void driver.start(o.variables)
    },
    // keys reach the driver one by one (it collects digits itself); an entry is only transcript
    onUserTurn: (text, source) => {
      if (source === 'speech') void driver.onSpeech(text)
    },
    onDtmf: (key) => void driver.onDtmf(key),
    stop: () => driver.stop(),
    preview: (text) => driver.preview(text),
  }
}

/** Tool nodes during a call: opt_out; other tools are not available to workflows on calls yet. */
function callTools(o: WorkflowBrainOptions, host: () => BrainHost | undefined): ToolRunner {
  return {
    async run(tool, args, ctx) {
      if (tool === 'opt_out' && o.optOut) {
        await o.optOut()
        const result = { optedOut: true }
        host()?.noteTool(tool, JSON.stringify(args), JSON.stringify(result))
        return result
      }
      throw new WorkflowRunError('tool_not_available', ctx.nodeId, `tool node "${ctx.nodeId}" calls ${tool}, which workflows cannot run during a call`)
    },
  }
}
