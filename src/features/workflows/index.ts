// The workflows feature's public face; its HTTP routes are workflows.http.ts.
export { WorkflowEngine, testRun, toEngineInput, WorkflowRunError } from './engine/index.ts'
export type { EngineInput, Final, RunState, StepResult, ToolRunner } from './engine/index.ts'
export { validateWorkflow, type WorkflowIssue } from './validate.ts'
export { type CallIo, WorkflowCallDriver } from './call/index.ts'
export type { WorkflowGraph, WorkflowNode, WorkflowEdge } from './workflow.model.ts'
export type { AgentExists, WorkflowService } from './workflows.service.ts'
export { getWorkflow, replaceWorkflow } from './workflows.service.ts'
export { findWorkflowGraph } from './workflows.repository.ts'
