// What a workflow does with a caller's words typed in: the node that speaks next and the value a
// collect node took. The corpus's `expect` is checked against it, and the bench reports it beside
// what the call did, so a wrong route is the recogniser's and not the workflow's.
import { testRun } from '../../../src/features/workflows/engine/index.ts'
import type { WorkflowGraph } from '../../../src/features/workflows/workflow.model.ts'
import { graphOf, type AgentName } from './agents.ts'

export interface TypedRoute {
  /** The first node that spoke after the caller's turn; undefined when none did. */
  node?: string
  /** What it said. */
  output?: string
  /** The collect node's value, when it took one. */
  value?: string
}

export async function typedRoute(agent: AgentName, text: string): Promise<TypedRoute> {
  const graph = graphOf(agent) as unknown as WorkflowGraph
  const opts = { maxVisits: 10, today: () => '2030-01-07' }
  const before = (await testRun(graph, [], opts)).responses.length
  const run = await testRun(graph, [{ role: 'user', content: text }], opts)
  const next = run.responses[before]
  const value = run.variables.value
  return { node: next?.nodeId, output: next?.output, value: typeof value === 'string' ? value : undefined }
}
