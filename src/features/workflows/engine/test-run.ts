import type { WorkflowGraph } from '../workflow.model.ts'
import type { Llm } from '../../../realtime/voice/llm/index.ts'
import type { AnswerSource, EngineInput, FinalAction, KnowledgeSearch, ToolRunner } from './contracts.ts'
import { WorkflowEngine } from './engine.ts'
import type { Variables } from '../../../platform/template.ts'

export interface TranscriptEntry {
  role: 'user' | 'assistant'
  content: string
}

export interface TestRunResult {
  path: string[]
  responses: { nodeId: string; output: string; sources?: AnswerSource[] }[]
  finalNode: string
  /** transfer, end_call, loop_limit, no_route; awaiting_input when the transcript ran out first */
  finalAction: FinalAction | 'awaiting_input'
  variables: Variables
}

export interface TestRunOptions {
  llm?: Llm
  tools?: ToolRunner
  /** The agent's knowledge bases, for answer nodes. */
  knowledge?: KnowledgeSearch
  maxVisits: number
  today: () => string
  variables?: Variables
}

const DTMF = /^\s*dtmf\s*:\s*([0-9*#A-D]+)\s*$/i

/** A transcript line `dtmf:12#` stands for keys pressed; any other user line is speech. */
export function toEngineInput(content: string): EngineInput {
  const m = DTMF.exec(content)
  return m ? { kind: 'dtmf', digits: (m[1] as string).toUpperCase() } : { kind: 'speech', text: content }
}

/**
 * The test-run driver: the same engine the voice driver uses, fed a transcript instead of
 * speech. User lines move the workflow; assistant lines are context for LLM nodes only.
 * Lines after the run has finished are not used.
 */
export async function testRun(graph: WorkflowGraph, inputs: TranscriptEntry[], opts: TestRunOptions): Promise<TestRunResult> {
  const engine = new WorkflowEngine(graph, opts)
  const path: string[] = []
  const responses: TestRunResult['responses'] = []
  let step = await engine.start(opts.variables)
  path.push(...step.visited)
  responses.push(...step.responses)
  let state = step.state
  for (const entry of inputs) {
    if (state.status === 'finished') break
    if (entry.role === 'assistant') {
      state = engine.note(state, entry.content)
      continue
    }
    step = await engine.receive(state, toEngineInput(entry.content))
    path.push(...step.visited)
    responses.push(...step.responses)
    state = step.state
  }
  return {
    path,
    responses,
    finalNode: state.nodeId,
    finalAction: state.final?.action ?? 'awaiting_input',
    variables: state.variables,
  }
}
