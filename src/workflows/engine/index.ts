export { WorkflowEngine, type EngineOptions } from './engine.ts'
export * from './contracts.ts'
export { testRun, toEngineInput, type TestRunResult, type TranscriptEntry, type TestRunOptions } from './test-run.ts'
export { fillTemplate, type Variables } from '../../template.ts'
