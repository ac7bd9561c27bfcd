import type { NumberStatus } from './numbers.table.ts'

/**
 * PhoneNumber.status, one pure rule:
 *   (new)        -> unconfigured   connected or bought, no agent yet
 *   (new)        -> active         connected or bought with an inbound or outbound agent
 *   unconfigured -> active         an inbound or outbound agent is assigned
 *   active       -> unconfigured   both agents are unassigned
 *   any live     -> error          the SIP layer reports the trunk failing (statusReason says why)
 *   error        -> active/unconfigured   the trunk recovers, or the SIP settings are changed
 *                                         (the trunk's: mediaEncryption is not one, SRTP leaves the trunk as reachable as it was)
 *   any live     -> released       DELETE; terminal, the number leaves the API
 */
export function nextStatus(
  current: NumberStatus,
  input: { hasAgent: boolean; trunk?: 'ok' | 'failed'; sipSettingsChanged?: boolean },
): NumberStatus {
  if (current === 'released') return 'released'
  if (input.trunk === 'failed') return 'error'
  if (current === 'error' && input.trunk !== 'ok' && !input.sipSettingsChanged) return 'error'
  return input.hasAgent ? 'active' : 'unconfigured'
}

export const NUMBER_STATUSES: NumberStatus[] = ['unconfigured', 'active', 'error', 'released']
