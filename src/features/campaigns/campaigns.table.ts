import type { Generated, Selectable } from 'kysely'

/** See docs/campaigns.md for the state machine. */
export type JobStatus = 'scheduled' | 'in_progress' | 'paused' | 'completed' | 'cancelled' | 'failed'

/**
 * pending: waits for its first or next attempt (next_attempt_ms); dialing: claimed by a
 * dispatcher under a lease, its attempt's call row exists; the rest are final.
 */
export type ContactStatus = 'pending' | 'dialing' | 'completed' | 'failed' | 'suppressed' | 'cancelled'

/** The outcome of a contact's last attempt (or why it was never dialled). */
export type ContactOutcome = 'answered' | 'no_answer' | 'busy' | 'voicemail' | 'failed' | 'suppressed' | 'cancelled'

/** Counter columns of a job; each equals a count over its contacts at every commit. */
export const COUNTERS = ['pending', 'active', 'answered', 'no_answer', 'busy', 'voicemail', 'failed', 'suppressed', 'cancelled'] as const
export type Counter = (typeof COUNTERS)[number]

export interface OutboundJobTable {
  id: string
  workspace_id: string
  agent_id: string
  phone_number_id: string
  name: string
  status: JobStatus
  /** JSON of JobSettings (campaigns.model.ts). */
  settings: string
  /** When dialling may begin (epoch ms). */
  start_at_ms: number
  total_contacts: number
  pending: Generated<number>
  active: Generated<number>
  answered: Generated<number>
  no_answer: Generated<number>
  busy: Generated<number>
  voicemail: Generated<number>
  failed: Generated<number>
  suppressed: Generated<number>
  cancelled: Generated<number>
  created_at: string
  started_at: string | null
  completed_at: string | null
}

export interface OutboundContactTable {
  id: string
  job_id: string
  /** Index in the contacts given at creation. */
  position: number
  to_number: string
  /** The contact's own IANA zone, as given at creation (canonical name); null: its number's or the job's (zones/). */
  timezone: string | null
  variables: Generated<string>
  status: ContactStatus
  outcome: ContactOutcome | null
  attempts: Generated<number>
  next_attempt_ms: Generated<number>
  /** The call of the attempt in flight (status dialing), else of the last attempt. */
  call_id: string | null
  /** JSON array of every attempt's call id, oldest first. */
  call_ids: Generated<string>
  lease_owner: string | null
  lease_expires_ms: number | null
  updated_at: string
}

export type OutboundJobRow = Selectable<OutboundJobTable>
export type OutboundContactRow = Selectable<OutboundContactTable>
