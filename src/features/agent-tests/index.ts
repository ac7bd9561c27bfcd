// The agent-tests feature's public face (issue 48): test cases of an agent, cases generated from
// its workflow, and the judging of a finished call against a case's expectations. Its HTTP routes
// are agent-tests.http.ts.
export { AgentTestCase, CaseInput, Expectation, Turn, type CallerVoice } from './agent-tests.model.ts'
export type { AgentTestTable } from './agent-tests.table.ts'
export { createCase, getCase, listCases, toCase } from './agent-tests.service.ts'
export { generateCases, MAX_GENERATED } from './generate.ts'
export { AgentTestRunner, type RunnerDeps } from './runner.ts'
export { judge, spokenNodes, type JudgedCall, type Verdict } from './judge.ts'
export { placeTestCall, type PhoneDeps } from './phone.ts'
