// Campaign events into the signed webhook outbox, to the job's agent's webhookUrl, in the
// transaction that made them true. A campaign call's own `call.completed` is the call record's
// event (sent for every call); the appliance adds the contact to it (contactOfCall).
import type { Db } from '../../platform/db/index.ts'
import { enqueueWebhookEvent } from '../webhooks/index.ts'
import * as repo from './campaigns.repository.ts'
import { toContact, toJobDetail } from './campaigns.service.ts'
import { settingsOf } from './claims.ts'
import type { CampaignEvents } from './events.ts'

export const outboxEvents: CampaignEvents = {
  async emit(trx, event) {
    if (event.type === 'call.completed') return
    const job = await repo.findJob(trx, event.workspaceId, event.jobId)
    if (!job) return
    const agent = await trx.selectFrom('agents').select('webhook_url').where('id', '=', job.agent_id).executeTakeFirst()
    if (!agent?.webhook_url) return
    await enqueueWebhookEvent(trx as Db, {
      workspaceId: event.workspaceId,
      agentId: job.agent_id,
      url: agent.webhook_url,
      type: event.type,
      data: { job: toJobDetail(job) },
      now: new Date(event.at),
    })
  },
}

/** The campaign contact a call was placed for, as the contacts API shows it at `nowMs`; null for other calls. */
export async function contactOfCall(db: Db, callId: string, nowMs: number): Promise<ReturnType<typeof toContact> | null> {
  const call = await db.selectFrom('calls').select('outbound_contact_id').where('id', '=', callId).executeTakeFirst()
  if (!call?.outbound_contact_id) return null
  const contact = await repo.findContact(db, call.outbound_contact_id)
  const job = contact && (await repo.findJobById(db, contact.job_id))
  return contact && job ? toContact(contact, settingsOf(job), nowMs) : null
}
