import { t } from 'elysia'

export const RunBody = t.Object({
  version: t.Optional(t.Union([t.Literal('draft'), t.Literal('published')], { description: "which prompt the calls run: the agent's draft or its published one (default)" })),
  testIds: t.Optional(t.Array(t.String(), { minItems: 1, maxItems: 200, description: 'only these cases (default: all of the agent)' })),
})
export type RunBody = typeof RunBody.static

export const Verdict = t.Object({
  index: t.Integer({ description: "the expectation's position in the case" }),
  type: t.String(),
  passed: t.Boolean(),
  reason: t.Optional(t.String({ description: 'why it failed' })),
})

export const TestResult = t.Object({
  testId: t.String(),
  name: t.String(),
  status: t.Union([t.Literal('pending'), t.Literal('running'), t.Literal('passed'), t.Literal('failed'), t.Literal('error'), t.Literal('interrupted')]),
  callId: t.Union([t.String(), t.Null()], { description: 'the test call: GET /api/calls/{id} (transcript, recording, metrics)' }),
  verdicts: t.Array(Verdict),
  error: t.Union([t.String(), t.Null()], { description: 'why the call could not be judged at all' }),
  startedAt: t.Union([t.String(), t.Null()]),
  finishedAt: t.Union([t.String(), t.Null()]),
})

export const TestRun = t.Object({
  id: t.String(),
  agentId: t.String(),
  version: t.Union([t.Literal('draft'), t.Literal('published')]),
  status: t.Union([t.Literal('running'), t.Literal('passed'), t.Literal('failed'), t.Literal('interrupted')]),
  total: t.Integer(),
  passed: t.Integer(),
  failed: t.Integer(),
  createdAt: t.String({ format: 'date-time' }),
  finishedAt: t.Union([t.String(), t.Null()]),
  results: t.Array(TestResult),
})
export type TestRun = typeof TestRun.static
