// A workflow runs the conversation: its say nodes speak, caller speech and keys drive it.
import type { Brain, BrainHost } from '../../voice/session/index.ts'
import { WorkflowCallDriver, type WorkflowGraph, type WorkflowLlm } from '../../workflows/index.ts'
import type { TransferOutcome } from './tools.ts'

export interface WorkflowBrainOptions {
  graph: WorkflowGraph
  variables: Record<string, string>
  llm?: WorkflowLlm
  maxVisits: number
  fallbackMessage: string
  transfer(target: string): Promise<TransferOutcome>
  /** The workflow's final action, for the call record. */
  onFinal?(action: string, nodeId: string): void
}

export function workflowBrain(o: WorkflowBrainOptions): Brain {
  let host: BrainHost | undefined
  const driver = new WorkflowCallDriver(
    o.graph,
    { llm: o.llm, maxVisits: o.maxVisits, today: () => new Date().toISOString().slice(0, 10) },
    {
      say: async (text) => {
        await host?.say(text)
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
  }
}
