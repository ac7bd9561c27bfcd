/**
 * A local stand-in for Twilio's REST API (2010-04-01): HTTP Basic auth with the account SID and
 * auth token, AvailablePhoneNumbers and IncomingPhoneNumbers resources as JSON, Twilio's error
 * body `{code, message, more_info, status}`, and form-encoded POSTs. It can also place a
 * "call" the way Twilio does: a signed request to the number's VoiceUrl.
 */
import type { Server } from 'bun'
import { twilioSignature } from '../../src/features/carrier/index.ts'

export interface FakeAvailable {
  phone_number: string
  friendly_name: string
  locality: string | null
  region: string | null
  iso_country: string
  capabilities: { voice: boolean; SMS: boolean; MMS: boolean }
}

export interface FakeIncoming {
  sid: string
  account_sid: string
  phone_number: string
  friendly_name: string
  voice_url: string | null
  voice_method: string
}

export interface RecordedTwilioRequest {
  method: string
  path: string
  query: Record<string, string>
  contentType: string | null
  form: Record<string, string>
}

export interface FakeTwilio {
  url: string
  accountSid: string
  authToken: string
  requests: RecordedTwilioRequest[]
  inventory: FakeAvailable[]
  incoming: Map<string, FakeIncoming>
  /**
   * Requests the number's VoiceUrl as Twilio does on an incoming call, signed with the auth
   * token. `via` sends it to another origin (as a reverse proxy would) while signing the URL as
   * configured.
   */
  placeCall(e164: string, from: string, opts?: { token?: string; via?: string }): Promise<Response>
  stop(): Promise<void>
}

const twilioError = (status: number, code: number, message: string) =>
  Response.json({ code, message, more_info: `https://www.twilio.com/docs/errors/${code}`, status }, { status })

export const DEFAULT_INVENTORY: FakeAvailable[] = [
  { phone_number: '+14155550123', friendly_name: '(415) 555-0123', locality: 'San Francisco', region: 'CA', iso_country: 'US', capabilities: { voice: true, SMS: true, MMS: false } },
  { phone_number: '+14155550124', friendly_name: '(415) 555-0124', locality: 'San Francisco', region: 'CA', iso_country: 'US', capabilities: { voice: true, SMS: false, MMS: false } },
  { phone_number: '+12125550199', friendly_name: '(212) 555-0199', locality: null, region: 'NY', iso_country: 'US', capabilities: { voice: true, SMS: true, MMS: true } },
  { phone_number: '+442071838750', friendly_name: '+442071838750', locality: 'London', region: null, iso_country: 'GB', capabilities: { voice: true, SMS: false, MMS: false } },
]

export function startFakeTwilio(accountSid = `AC${'0123456789abcdef'.repeat(2)}`, authToken = 'fake-twilio-auth-token'): FakeTwilio {
  const requests: RecordedTwilioRequest[] = []
  const inventory = DEFAULT_INVENTORY.map((n) => ({ ...n, capabilities: { ...n.capabilities } }))
  const incoming = new Map<string, FakeIncoming>()
  let seq = 0
  const basic = `Basic ${Buffer.from(`${accountSid}:${authToken}`).toString('base64')}`

  const server: Server<undefined> = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    async fetch(req) {
      const url = new URL(req.url)
      const text = req.method === 'POST' ? await req.text() : ''
      const form = Object.fromEntries(new URLSearchParams(text))
      requests.push({ method: req.method, path: url.pathname, query: Object.fromEntries(url.searchParams), contentType: req.headers.get('content-type'), form })
      if (req.headers.get('authorization') !== basic) return twilioError(401, 20003, 'Authenticate')
      const base = `/2010-04-01/Accounts/${accountSid}`
      if (!url.pathname.startsWith(`${base}/`)) return twilioError(404, 20404, `The requested resource ${url.pathname} was not found`)
      const rest = url.pathname.slice(base.length)
      const avail = /^\/AvailablePhoneNumbers\/([A-Z]{2})\/Local\.json$/.exec(rest)
      if (req.method === 'GET' && avail) {
        const country = avail[1] as string
        const inCountry = inventory.filter((n) => n.iso_country === country)
        if (inCountry.length === 0) return twilioError(404, 20404, `The requested resource ${url.pathname} was not found`)
        const area = url.searchParams.get('AreaCode')
        const size = Number(url.searchParams.get('PageSize') ?? 50)
        const found = inCountry.filter((n) => !area || (country === 'US' && n.phone_number.slice(2, 5) === area)).slice(0, size)
        return Response.json({
          uri: `${url.pathname}${url.search}`,
          available_phone_numbers: found.map((n) => ({ ...n, lata: null, rate_center: null, latitude: null, longitude: null, postal_code: null, address_requirements: 'none', beta: false })),
        })
      }
      if (req.method === 'POST' && rest === '/IncomingPhoneNumbers.json') {
        if (req.headers.get('content-type') !== 'application/x-www-form-urlencoded') return twilioError(400, 20001, 'Invalid content type')
        if (!form.PhoneNumber) return twilioError(400, 21421, 'PhoneNumber is required.')
        const i = inventory.findIndex((n) => n.phone_number === form.PhoneNumber)
        if (i < 0) return twilioError(400, 21422, 'PhoneNumber requested is not available')
        inventory.splice(i, 1)
        const sid = `PN${String(++seq).padStart(32, '0')}`
        const pn: FakeIncoming = {
          sid,
          account_sid: accountSid,
          phone_number: form.PhoneNumber,
          friendly_name: form.FriendlyName ?? form.PhoneNumber,
          voice_url: form.VoiceUrl ?? null,
          voice_method: form.VoiceMethod ?? 'POST',
        }
        incoming.set(sid, pn)
        return Response.json({ ...pn, capabilities: { voice: true, sms: false, mms: false, fax: false }, date_created: new Date().toUTCString() }, { status: 201 })
      }
      const one = /^\/IncomingPhoneNumbers\/(PN[0-9a-f]+)\.json$/.exec(rest)
      if (req.method === 'DELETE' && one) {
        if (!incoming.delete(one[1] as string)) return twilioError(404, 20404, `The requested resource ${url.pathname} was not found`)
        return new Response(null, { status: 204 })
      }
      return twilioError(404, 20404, `The requested resource ${url.pathname} was not found`)
    },
  })

  return {
    url: `http://127.0.0.1:${server.port}`,
    accountSid,
    authToken,
    requests,
    inventory,
    incoming,
    async placeCall(e164, from, opts = {}) {
      const pn = [...incoming.values()].find((n) => n.phone_number === e164)
      if (!pn?.voice_url) throw new Error(`no voice URL for ${e164}`)
      const target = new URL(pn.voice_url)
      target.searchParams.set('AccountSid', accountSid)
      target.searchParams.set('CallSid', `CA${String(++seq).padStart(32, '0')}`)
      target.searchParams.set('From', from)
      target.searchParams.set('To', e164)
      target.searchParams.set('Direction', 'inbound')
      const signature = twilioSignature(opts.token ?? authToken, target.toString())
      const sendTo = opts.via ? new URL(target.pathname + target.search, opts.via) : target
      return fetch(sendTo, { headers: { 'x-twilio-signature': signature } })
    },
    async stop() {
      await server.stop(true)
    },
  }
}
