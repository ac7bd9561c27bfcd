// Background work of a running appliance (analysis, webhooks, retention, campaigns).
export { type BackgroundDeps, type RunningBackground, start } from './start.ts'
