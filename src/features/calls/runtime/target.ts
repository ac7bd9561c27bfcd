// Where a number's trunk is dialled: the callee as the user part of the trunk's URI. Pure.
import type { NumberRoute } from '../../numbers/index.ts'
import { strictE164 } from '../../numbers/index.ts'
import { parseSipUri } from '../../../platform/net/index.ts'

/**
 * `to` is an E.164 number (dialled through the number's trunk) or a SIP URI (used as it is).
 * The trunk's transport comes from its URI, else from the number's sipOutboundTransport.
 */
export function dialTarget(route: NumberRoute, to: string): string {
  if (/^sips?:/i.test(to)) {
    if (!parseSipUri(to)) throw new RangeError(`not a SIP URI: ${to}`)
    return to
  }
  const e164 = strictE164(to)
  if (!e164) throw new RangeError(`not an E.164 number: ${to}`)
  const trunk = route.sip ? parseSipUri(route.sip.terminationUri) : undefined
  if (!trunk) throw new RangeError('the number has no SIP trunk')
  const host = trunk.host.includes(':') ? `[${trunk.host}]` : trunk.host
  const params = { ...trunk.params }
  if (!('transport' in params) && trunk.scheme === 'sip') params.transport = route.sip!.transport
  const paramText = Object.entries(params)
    .map(([k, v]) => (v === null ? `;${k}` : `;${k}=${v}`))
    .join('')
  return `${trunk.scheme}:${e164}@${host}${trunk.port ? `:${trunk.port}` : ''}${paramText}`
}
