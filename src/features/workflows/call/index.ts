export { type CallIo, type DriverOptions, type Timers, WorkflowCallDriver } from './driver.ts'
export { DigitBuffer, type DigitExpectation, digitExpectation } from './dtmf.ts'
export { type AnswerSource, type KnowledgeSearch, type ToolRunner, WorkflowRunError } from '../engine/index.ts'
export type { WorkflowGraph } from '../workflow.model.ts'
