// A supervisor's control of a live call (issue 47): the actions API, its audit and call.action.
export type { ActionDeps, LiveCalls } from './actions.service.ts'
