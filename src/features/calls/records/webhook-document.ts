// What a webhook about a call carries: the call's export document, with the campaign contact
// when the call was placed for one. The contact is looked up by the caller's function because
// campaigns read call records, not the other way round.
import type { RecordsDeps } from './records.service.ts'
import { exportCallById } from './records.service.ts'

export type ContactOfCall = (callId: string) => Promise<object | null>

/** The body of a webhook delivery about `callId` (null when the delivery concerns no call or the call is gone). */
export async function callWebhookDocument(deps: RecordsDeps, callId: string | null, contactOf: ContactOfCall): Promise<object | null> {
  if (!callId) return null
  const doc = await exportCallById(deps, callId)
  const contact = doc && (await contactOf(callId))
  return contact ? { ...doc, contact } : doc
}
