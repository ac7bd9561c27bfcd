export { CallRuntime, type CallRuntimeDeps } from './runtime.ts'
export { dialTarget } from './target.ts'
