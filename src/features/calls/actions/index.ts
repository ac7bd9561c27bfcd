// A supervisor's control of a live call (issue 47): the actions API, its audit and call.action.
export { callActionsController } from './actions.http.ts'
export type { ActionDeps, LiveCalls } from './actions.service.ts'
