import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { type Api, memberKey, startTestAppliance, type TestAppliance } from '../helpers/appliance.ts'
import { type FakeTwilio, startFakeTwilio } from '../fakes/twilio.ts'

let twilio: FakeTwilio
let t: TestAppliance
let base: string
const PUBLIC = 'https://voice.example.com'

beforeAll(async () => {
  twilio = startFakeTwilio()
  t = await startTestAppliance({
    CARRIER_API_BASE: twilio.url,
    CARRIER_ACCOUNT_SID: twilio.accountSid,
    CARRIER_AUTH_TOKEN: twilio.authToken,
    PUBLIC_HTTP_URL: PUBLIC,
    PUBLIC_HOST: 'sip.example.com',
  })
  base = `/api/workspaces/${t.workspaceId}/carrier`
})
afterAll(async () => {
  await t.stop()
  await twilio.stop()
})

const buy = (phoneNumber: string, api: Api = t.api) => api('POST', `${base}/buy-number`, { body: { phoneNumber } })

describe('carrier: search available numbers', () => {
  test('returns exactly {numbers: [{phoneNumber, friendlyName, locality, region, isoCountry, capabilities}]}', async () => {
    const r = await t.api('GET', `${base}/available-numbers?country=US&area_code=415`)
    expect(r.status).toBe(200)
    expect(r.body).toEqual({
      numbers: [
        { phoneNumber: '+14155550123', friendlyName: '(415) 555-0123', locality: 'San Francisco', region: 'CA', isoCountry: 'US', capabilities: { voice: true, SMS: true, MMS: false } },
        { phoneNumber: '+14155550124', friendlyName: '(415) 555-0124', locality: 'San Francisco', region: 'CA', isoCountry: 'US', capabilities: { voice: true, SMS: false, MMS: false } },
      ],
    })
    const q = twilio.requests.at(-1)!
    expect(q.path).toBe(`/2010-04-01/Accounts/${twilio.accountSid}/AvailablePhoneNumbers/US/Local.json`)
    expect(q.query.AreaCode).toBe('415')
  })

  test('missing locality or region from the carrier become empty strings; country is case-insensitive', async () => {
    const r = await t.api('GET', `${base}/available-numbers?country=us&area_code=212`)
    expect(r.body.numbers).toEqual([
      { phoneNumber: '+12125550199', friendlyName: '(212) 555-0199', locality: '', region: 'NY', isoCountry: 'US', capabilities: { voice: true, SMS: true, MMS: true } },
    ])
  })

  test('bad query parameters name the field; carrier errors keep the carrier code in details', async () => {
    const bad = await t.api('GET', `${base}/available-numbers?country=USA&area_code=4x5`)
    expect(bad.status).toBe(400)
    expect(bad.body.error.details.fields.map((f: any) => f.path).sort()).toEqual(['area_code', 'country'])
    const missing = await t.api('GET', `${base}/available-numbers`)
    expect(missing.status).toBe(400)
    const unknown = await t.api('GET', `${base}/available-numbers?country=ZZ`)
    expect(unknown.status).toBe(422)
    expect(unknown.body.error).toMatchObject({ code: 'carrier_error', details: { carrier: 'twilio', carrierStatus: 404, carrierCode: 20404 } })
  })

  test('members may search; another workspace is 404', async () => {
    const { key } = await memberKey(t, 'carrier-member@example.com')
    expect((await t.api('GET', `${base}/available-numbers?country=GB`, { key })).status).toBe(200)
    const ws = await t.api('POST', '/api/workspaces', { body: { name: 'Elsewhere' } })
    expect((await t.api('GET', `/api/workspaces/${ws.body.workspace.id}/carrier/available-numbers?country=US`)).status).toBe(404)
    expect((await t.api('POST', `/api/workspaces/${ws.body.workspace.id}/carrier/buy-number`, { body: { phoneNumber: '+14155550123' } })).status).toBe(404)
  })
})

describe('carrier: buy a number', () => {
  test('without a payment method: 402, nothing bought at the carrier, nothing created', async () => {
    const before = twilio.requests.length
    const r = await buy('+14155550123')
    expect(r.status).toBe(402)
    expect(r.body.error.code).toBe('payment_method_required')
    expect(twilio.requests.length).toBe(before)
    const viaNumbers = await t.api('POST', '/api/phone-numbers', { body: { e164: '+14155550123' } })
    expect(viaNumbers.status).toBe(402)
    expect(twilio.requests.length).toBe(before)
    expect((await t.api('GET', '/api/phone-numbers')).body.phoneNumbers).toEqual([])
    expect((await t.api('POST', `/api/workspaces/${t.workspaceId}/payment-methods`, { body: { provider: 'manual', reference: 'acct 9' } })).status).toBe(200)
  })

  let bought: any
  test('buys, records provider carrier / source purchased and points voice routing at this appliance', async () => {
    const r = await buy('+14155550123')
    expect(r.status).toBe(200)
    expect(Object.keys(r.body)).toEqual(['phoneNumber'])
    bought = r.body.phoneNumber
    expect(bought).toMatchObject({ e164: '+14155550123', provider: 'carrier', source: 'purchased', status: 'unconfigured', label: '+1 415 555 0123', sipTerminationUri: null })
    const post = twilio.requests.at(-1)!
    expect(post.method).toBe('POST')
    expect(post.path).toBe(`/2010-04-01/Accounts/${twilio.accountSid}/IncomingPhoneNumbers.json`)
    expect(post.contentType).toBe('application/x-www-form-urlencoded')
    expect(post.form).toEqual({ PhoneNumber: '+14155550123', FriendlyName: '+1 415 555 0123', VoiceUrl: `${PUBLIC}/carrier/twilio/voice`, VoiceMethod: 'GET' })
    expect([...twilio.incoming.values()].map((n) => n.phone_number)).toEqual(['+14155550123'])
  })

  test('the carrier voice webhook answers signed calls with TwiML that dials this appliance over SIP', async () => {
    const noAgent = await twilio.placeCall('+14155550123', '+12025550111', { via: t.url })
    expect(noAgent.status).toBe(200)
    expect(noAgent.headers.get('content-type')).toContain('text/xml')
    expect(await noAgent.text()).toContain('<Reject reason="busy"/>')
    const agent = (await t.api('POST', '/api/agents', { body: { name: 'Carrier desk' } })).body.agent
    await t.api('PATCH', `/api/phone-numbers/${bought.id}`, { body: { inboundAgentId: agent.id } })
    const routed = await twilio.placeCall('+14155550123', '+12025550111', { via: t.url })
    expect(await routed.text()).toContain('<Dial answerOnBridge="true"><Sip>sip:+14155550123@sip.example.com:0</Sip></Dial>')
    const forged = await twilio.placeCall('+14155550123', '+12025550111', { via: t.url, token: 'not-the-token' })
    expect(forged.status).toBe(403)
  })

  test('the same number again is 409 without asking the carrier; an unavailable number maps the carrier error', async () => {
    const before = twilio.requests.length
    expect((await buy('+14155550123')).status).toBe(409)
    expect(twilio.requests.length).toBe(before)
    const gone = await buy('+14155550199')
    expect(gone.status).toBe(422)
    expect(gone.body.error).toMatchObject({
      code: 'carrier_error',
      message: 'the carrier refused: PhoneNumber requested is not available',
      details: { carrierStatus: 400, carrierCode: 21422, moreInfo: 'https://www.twilio.com/docs/errors/21422' },
    })
    const invalid = await buy('555-0199')
    expect(invalid.status).toBe(422)
    expect(invalid.body.error.details.fields.map((f: any) => f.path)).toEqual(['phoneNumber'])
    expect((await t.api('GET', '/api/phone-numbers')).body.phoneNumbers).toHaveLength(1)
  })

  test('another workspace buying a number this one owns is 409 number_in_use without asking the carrier', async () => {
    const ws = await t.api('POST', '/api/workspaces', { body: { name: 'Second buyer' } })
    const key = ws.body.apiKey.key as string
    await t.api('POST', `/api/workspaces/${ws.body.workspace.id}/payment-methods`, { key, body: { provider: 'manual', reference: 'second' } })
    const before = twilio.requests.length
    for (const r of [
      await t.api('POST', `/api/workspaces/${ws.body.workspace.id}/carrier/buy-number`, { key, body: { phoneNumber: '+14155550123' } }),
      await t.api('POST', '/api/phone-numbers', { key, body: { e164: '+14155550123' } }),
    ]) {
      expect(r.status).toBe(409)
      expect(r.body.error.code).toBe('number_in_use')
    }
    expect(twilio.requests.length).toBe(before)
  })

  test('POST /api/phone-numbers with provider carrier buys through the carrier too', async () => {
    const r = await t.api('POST', '/api/phone-numbers', { body: { e164: '+14155550124', label: 'Sales line' } })
    expect(r.status).toBe(200)
    expect(r.body.phoneNumber).toMatchObject({ provider: 'carrier', source: 'purchased', label: 'Sales line' })
  })

  test('members cannot buy', async () => {
    const { key } = await memberKey(t, 'carrier-buyer@example.com')
    expect((await t.api('POST', `${base}/buy-number`, { key, body: { phoneNumber: '+12125550199' } })).status).toBe(403)
  })

  test('DELETE releases the number at the carrier as well', async () => {
    const sid = [...twilio.incoming.values()].find((n) => n.phone_number === '+14155550123')!.sid
    expect((await t.api('DELETE', `/api/phone-numbers/${bought.id}`)).status).toBe(200)
    expect(twilio.incoming.has(sid)).toBe(false)
    expect(twilio.requests.at(-1)).toMatchObject({ method: 'DELETE', path: `/2010-04-01/Accounts/${twilio.accountSid}/IncomingPhoneNumbers/${sid}.json` })
  })
})

describe('carrier: settings', () => {
  test('workspace settings override the config; the token is never returned; wrong credentials map the carrier code', async () => {
    const cfg = await t.api('GET', `${base}/settings`)
    expect(cfg.body.carrierSettings).toEqual({ accountSid: twilio.accountSid, authTokenSet: true, source: 'config', updatedAt: null })
    const bad = await t.api('PUT', `${base}/settings`, { body: { accountSid: twilio.accountSid, authToken: 'wrong-token-123' } })
    expect(bad.status).toBe(200)
    expect(JSON.stringify(bad.body)).not.toContain('wrong-token-123')
    expect(bad.body.carrierSettings).toMatchObject({ source: 'workspace', authTokenSet: true })
    const refused = await t.api('GET', `${base}/available-numbers?country=US`)
    expect(refused.status).toBe(502)
    expect(refused.body.error).toMatchObject({ code: 'carrier_error', details: { carrierStatus: 401, carrierCode: 20003 } })
    const invalid = await t.api('PUT', `${base}/settings`, { body: { accountSid: 'not-a-sid', authToken: 'x' } })
    expect(invalid.status).toBe(422)
    expect(invalid.body.error.details.fields.map((f: any) => f.path).sort()).toEqual(['accountSid', 'authToken'])
    expect((await t.api('DELETE', `${base}/settings`)).status).toBe(200)
    expect((await t.api('GET', `${base}/available-numbers?country=US`)).status).toBe(200)
  })

  test('an unconfigured carrier is a clear error naming the missing settings', async () => {
    const bare = await startTestAppliance()
    try {
      const r = await bare.api('GET', `/api/workspaces/${bare.workspaceId}/carrier/available-numbers?country=US`)
      expect(r.status).toBe(503)
      expect(r.body.error).toMatchObject({ code: 'carrier_not_configured', details: { missing: ['CARRIER_ACCOUNT_SID', 'CARRIER_AUTH_TOKEN'] } })
      expect(r.body.error.message).toContain('CARRIER_ACCOUNT_SID')
    } finally {
      await bare.stop()
    }
  })
})
