import type { Generated, Selectable } from 'kysely'
import type { DeliveryErrorCode } from './delivery-error.ts'

/**
 * pending: waiting to be sent (or sent again at next_attempt_at); delivered: a 2xx came back;
 * failed: the retry schedule ran out; gone: the receiver answered 410 and the agent's webhook
 * was turned off.
 */
export type DeliveryStatus = 'pending' | 'delivered' | 'failed' | 'gone'

/** The outbox: one row per event and receiver. Its id is the webhook-id of every attempt. */
export interface WebhookDeliveryTable {
  id: string
  workspace_id: string
  /** The call the event is about; deleting the call deletes its deliveries. */
  call_id: string | null
  agent_id: string | null
  event_type: string
  url: string
  /**
   * The exact body sent on every attempt. Null while it waits to be rendered (a call's record
   * waiting for its analysis); it is rendered and stored before the first attempt.
   */
  payload: string | null
  status: DeliveryStatus
  attempts: Generated<number>
  next_attempt_at: string
  lease_owner: string | null
  lease_expires_at: string | null
  last_status_code: number | null
  /** The coarse code of the last failed attempt, readable by members. */
  last_error: DeliveryErrorCode | null
  /** What exactly went wrong (the network error text): admins and the log only. */
  last_error_detail: string | null
  created_at: string
  delivered_at: string | null
}

export interface WebhookAttemptTable {
  id: Generated<number>
  delivery_id: string
  attempted_at: string
  status_code: number | null
  latency_ms: number
  /** Null when a 2xx came back. */
  error: DeliveryErrorCode | null
  /** The network error text: admins and the log only. */
  error_detail: string | null
}

/** Per-workspace signing secrets, sealed with the SecretBox. */
export interface WebhookSecretTable {
  workspace_id: string
  secret: string
  previous_secret: string | null
  previous_valid_until: string | null
  rotated_at: string | null
  created_at: string
}

export type DeliveryRow = Selectable<WebhookDeliveryTable>
export type AttemptRow = Selectable<WebhookAttemptTable>
