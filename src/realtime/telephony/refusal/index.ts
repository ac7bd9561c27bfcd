// Public face of the refusal policy: import it only through this file.
export { DEFAULT_POLICY, isBusy, RefusalPolicy, type CallRefusalReason, type Refusal, type RefusalRule } from './policy.ts'
