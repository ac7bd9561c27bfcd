// The numbers feature's public face; its HTTP routes are numbers.http.ts.
export { contactE164, countryCode, displayE164, normalizeE164, strictE164 } from './e164.ts'
export { PhoneNumber } from './numbers.model.ts'
export type { NumberMediaEncryption, NumberProvider, NumberSource, NumberStatus, SipTransport } from './numbers.table.ts'
export { reportTrunkHealth } from './numbers.service.ts'
export { findNumberByE164, findNumbersByE164, findRegisteringNumbers, getNumberRoute, type NumberRoute } from './sip-lookup.ts'
export { nextStatus, NUMBER_STATUSES } from './status.ts'
export { type RegistrationOptions, TrunkRegistrations } from './registrations.ts'
