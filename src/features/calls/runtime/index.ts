export { CallRuntime, type CallRuntimeDeps } from './runtime.ts'
export { dialTarget } from './target.ts'
export { WORKER_FAILED } from './live-call.ts'
