export { CallRuntime, type AppCallRequest, type CallRuntimeDeps } from './runtime.ts'
export { AppLeg, type AppLegKind } from './app-leg.ts'
export { dialTarget } from './target.ts'
export { WORKER_FAILED } from './live-call.ts'
