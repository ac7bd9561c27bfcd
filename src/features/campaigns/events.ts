// Campaign events leave through this one interface, inside the transaction that made them
// true; the appliance wires it to the signed webhook outbox.
import type { Tx } from './campaigns.repository.ts'

export type CampaignEvent =
  | { type: 'job.started'; workspaceId: string; jobId: string; at: string }
  | { type: 'job.completed'; workspaceId: string; jobId: string; status: 'completed' | 'cancelled' | 'failed'; at: string }
  | {
      type: 'call.completed'
      workspaceId: string
      jobId: string
      callId: string
      contact: { id: string; to: string; dynamicVariables: Record<string, string>; status: string; attempts: number; lastOutcome: string }
      at: string
    }

export interface CampaignEvents {
  emit(trx: Tx, event: CampaignEvent): Promise<void>
}

/** Keeps nothing: for an appliance without an outbox. */
export const noEvents: CampaignEvents = { emit: async () => {} }

/** Keeps every event in memory, in order (tests, and logs). */
export class RecordedEvents implements CampaignEvents {
  readonly events: CampaignEvent[] = []
  async emit(_trx: Tx, event: CampaignEvent): Promise<void> {
    this.events.push(event)
  }
}
