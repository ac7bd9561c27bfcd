// One log line per state change of a campaign, written by the node that made the change and
// only once its transaction committed (a rolled-back change logs nothing, and a change another
// node made first is logged there, not here). The lines are listed in docs/campaigns.md.
import type { Logger } from '../../platform/log.ts'
import type { JobStatus, OutboundJobRow } from './campaigns.table.ts'

type JobCounts = Pick<OutboundJobRow, 'total_contacts' | 'pending' | 'active' | 'answered' | 'voicemail' | 'no_answer' | 'busy' | 'failed' | 'suppressed' | 'cancelled'>
export type LoggedJob = Pick<OutboundJobRow, 'id' | 'workspace_id' | 'name'> & JobCounts

export type JobChange = 'started' | 'paused' | 'resumed' | 'cancelled' | 'completed' | 'failed' | 'ended'

const MESSAGES: Record<JobChange, string> = {
  started: 'campaign started',
  paused: 'campaign paused',
  resumed: 'campaign resumed',
  cancelled: 'campaign cancelled',
  completed: 'campaign completed',
  failed: 'campaign failed',
  // a cancelled job whose calls in progress at the cancel have all ended
  ended: 'campaign ended',
}

/** The counters as the API names them (completed = answered + voicemail; failed = no answer, busy or failed). */
export function contactCounts(j: JobCounts) {
  return {
    totalContacts: j.total_contacts,
    completedContacts: j.answered + j.voicemail,
    failedContacts: j.no_answer + j.busy + j.failed,
    pendingContacts: j.pending,
    activeContacts: j.active,
    suppressedContacts: j.suppressed,
    cancelledContacts: j.cancelled,
  }
}

/**
 * Logs `change` of `job`, now in `status`, with its counters. A line that ends the job (nothing
 * pending or in progress is left) carries `ended: true`; a failure is a warning, the rest info.
 */
export function logJobChange(log: Logger | undefined, job: LoggedJob, change: JobChange, status: JobStatus, extra: Record<string, unknown> = {}): void {
  if (!log) return
  const fields = { jobId: job.id, workspaceId: job.workspace_id, name: job.name, status, ...contactCounts(job), ...extra }
  if (change === 'failed') log.warn(fields, MESSAGES[change])
  else log.info(fields, MESSAGES[change])
}

/** The line for a job that closeIfDone just closed: completed, or cancelled and its last call ended. */
export function logJobClosed(log: Logger | undefined, closed: (LoggedJob & { status: JobStatus }) | undefined): void {
  if (!closed) return
  logJobChange(log, closed, closed.status === 'cancelled' ? 'ended' : 'completed', closed.status, { ended: true })
}
