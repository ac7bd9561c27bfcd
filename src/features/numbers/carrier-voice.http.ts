import { Elysia } from 'elysia'
import { carrierCredentials, signatureMatches } from '../carrier/index.ts'
import { AppError } from '../../platform/errors.ts'
import type { NumbersDeps } from './numbers.service.ts'
import { voiceUrl } from './numbers.service.ts'
import { findNumbersByE164 } from './sip-lookup.ts'

const xml = (body: string) =>
  new Response(`<?xml version="1.0" encoding="UTF-8"?>\n<Response>${body}</Response>\n`, { headers: { 'content-type': 'text/xml; charset=utf-8' } })

const escapeXml = (s: string) => s.replace(/[<>&'"]/g, (c) => `&#${c.charCodeAt(0)};`)

/**
 * The voice URL bought numbers point at. The carrier calls it (GET, signed with the account's
 * auth token) when a call arrives, and we answer with TwiML that dials this appliance over SIP.
 * Unsigned or wrongly signed requests get 403 (the JSON error body); a number without an inbound agent is rejected.
 */
export function carrierVoiceRoute(deps: NumbersDeps & { sipPort: number }) {
  const { db, box } = deps
  return new Elysia({ tags: ['Carrier'] }).get(
    '/carrier/twilio/voice',
    async ({ request }) => {
      const url = new URL(request.url)
      const to = url.searchParams.get('To') ?? ''
      const signature = request.headers.get('x-twilio-signature') ?? ''
      const signedUrl = voiceUrl(deps.publicBase) + url.search
      for (const n of await findNumbersByE164(db, box, to)) {
        if (n.provider !== 'carrier') continue
        let token: string
        try {
          token = (await carrierCredentials(db, box, deps.config, n.workspaceId)).authToken
        } catch {
          continue
        }
        if (!signatureMatches(token, signedUrl, signature)) continue
        if (!n.inboundAgentId) return xml('<Reject reason="busy"/>')
        const target = `sip:${n.e164}@${deps.config.PUBLIC_HOST}:${deps.sipPort}`
        return xml(`<Dial answerOnBridge="true"><Sip>${escapeXml(target)}</Sip></Dial>`)
      }
      throw new AppError(403, 'forbidden', 'not signed by the carrier account of a number on this appliance')
    },
    { detail: { summary: 'Carrier voice webhook (TwiML): signed by the carrier, routes the call to this appliance over SIP' } },
  )
}
