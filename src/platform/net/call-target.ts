// What a call may be sent to: an E.164 number as written, or a SIP URI. The one check of a
// transfer target (workflow transfer nodes, the transfer_call tool) and of a number the
// appliance dials, so that what is saved is what can be dialled.
// Not exported from index.ts: libphonenumber's metadata would then load into every call worker.
import { parsePhoneNumberFromString } from 'libphonenumber-js'
import { parseSipUri } from './sip-uri.ts'
import { sipUriProblem } from './sip-target.ts'

const STRICT = /^\+[1-9][0-9]{1,14}$/

/** The number if `raw` is a valid E.164 number as written (+ and digits only), else undefined. Pure. */
export function strictE164(raw: string): string | undefined {
  if (!STRICT.test(raw)) return undefined
  const parsed = parsePhoneNumberFromString(raw)
  return parsed?.isValid() && parsed.number === raw ? raw : undefined
}

export const CALL_TARGET_RULE = 'must be an E.164 number (+14155550123) or a SIP URI (sip:desk@pbx.example.com)'

/** Why `raw` cannot be a call's target, or undefined: a number libphonenumber holds valid, or a SIP URI the appliance may send to. Pure. */
export function callTargetProblem(raw: string): string | undefined {
  if (/^sips?:/i.test(raw)) {
    const uri = parseSipUri(raw)
    if (!uri) return CALL_TARGET_RULE
    const problem = sipUriProblem(uri.host, Object.keys(uri.params))
    return problem ? `is a SIP URI the appliance may not call: ${problem}` : undefined
  }
  return strictE164(raw) ? undefined : CALL_TARGET_RULE
}
