import { t } from 'elysia'
import { BodyRecord, Guarded, Variables } from '../../platform/schema/index.ts'
import { WorkflowInput } from './workflow.model.ts'

export { Workflow, WorkflowInput } from './workflow.model.ts'

const Scalar = t.Union([t.String(), t.Number(), t.Boolean(), t.Null()])

export const TestRunBody = t.Object({
  inputs: Guarded(
    t.Array(
      t.Object({
        role: t.Union([t.Literal('user'), t.Literal('assistant')]),
        content: t.String({ maxLength: 4000, description: 'what was said; a user line `dtmf:12#` stands for keys pressed' }),
      }),
      { maxItems: 500, description: 'user lines drive the workflow; assistant lines are context for LLM nodes' },
    ),
    'must be a list of at most 500 lines {role, content}',
  ),
  workflow: t.Optional(t.Composite([WorkflowInput], { description: 'a draft to run instead of the saved workflow; validated the same way, not saved' })),
  variables: t.Optional(Variables(Scalar, 'starting variables, as an outbound contact\'s dynamicVariables; at most 64')),
  toolResults: t.Optional(
    BodyRecord('^[A-Za-z0-9_.:-]{1,64}$', t.Unknown(), { maxProperties: 500, description: 'tool node id -> result to use instead of calling the tool' }),
  ),
})
export type TestRunBody = typeof TestRunBody.static

export const TestRunResult = t.Object({
  path: t.Array(t.String(), { description: 'node ids in visit order (a node repeated when visited again)' }),
  responses: t.Array(
    t.Object({
      nodeId: t.String(),
      output: t.String(),
      sources: t.Optional(
        t.Array(t.Object({ passageId: t.Integer(), documentName: t.String(), section: t.String(), score: t.Number() }), { description: 'an answer node: the knowledge-base passage it said' }),
      ),
    }),
    { description: 'what the agent said, in order' },
  ),
  finalNode: t.String({ description: 'the node the run ended or is waiting on' }),
  finalAction: t.String({ description: 'transfer, end_call, loop_limit, no_route, or awaiting_input when the inputs ran out first' }),
  variables: t.Record(t.String(), t.Unknown(), { description: 'variables at the end of the run (collected values, tool results)' }),
})
