// The busy announcement: a number whose whenBusy is 'announce' has a caller it cannot carry now
// answered, told the lines are busy and hung up, instead of refused with 503. The call runs the
// ordinary path with this one-line workflow and holds no admission place.
import type { CallRefusalReason } from '../../../realtime/telephony/refusal/index.ts'
import { validateWorkflow, type WorkflowGraph } from '../../workflows/index.ts'
import type { NumberRoute } from '../../numbers/index.ts'
import type { Ticket } from '../admission/index.ts'

export const BUSY_ANNOUNCEMENT = 'All our lines are busy, please call again.'

const checked = validateWorkflow({
  nodes: [{ id: 'start', type: 'start', config: { text: BUSY_ANNOUNCEMENT } }, { id: 'bye', type: 'end', config: {} }],
  edges: [{ from: 'start', to: 'bye' }],
})
if (!checked.ok) throw new Error(`the busy announcement's workflow is not valid: ${JSON.stringify(checked.issues)}`)
export const BUSY_GRAPH: WorkflowGraph = checked.graph

/** Whether this refusal of a call on `route` is told by the announcement instead of a 503. */
export const announcesBusy = (route: NumberRoute, reason: CallRefusalReason): boolean =>
  route.whenBusy === 'announce' && (reason === 'workspace_limit' || reason === 'no_headroom')

/** The place of an announced call: counted nowhere, so it never refuses a call itself. */
export const UNCOUNTED = (workspaceId: string): Ticket => ({ workspaceId, kind: 'inbound', release() {} })
