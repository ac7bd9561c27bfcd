import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { startTestAppliance, type TestAppliance } from '../helpers/appliance.ts'
import { type FakeTwilio, startFakeTwilio } from '../fakes/twilio.ts'

/**
 * The resource tables of spec/voice-agent-platform-api.md, transcribed field by field:
 * [field, type, nullable (the spec's `?`), allowed values when the spec lists them].
 */
type Kind = 'string' | 'timestamp' | 'object' | 'string[]' | 'boolean'
type Row = [field: string, kind: Kind, nullable?: boolean, values?: string[]]

const PHONE_NUMBER: Row[] = [
  ['id', 'string'],
  ['workspaceId', 'string'],
  ['e164', 'string'],
  ['label', 'string'],
  ['provider', 'string', false, ['sip', 'carrier']],
  ['status', 'string'],
  ['inboundAgentId', 'string', true],
  ['outboundAgentId', 'string', true],
  ['source', 'string'],
  ['createdAt', 'timestamp'],
  ['updatedAt', 'timestamp'],
]

const AGENT: Row[] = [
  ['name', 'string'],
  ['promptDraft', 'string'],
  ['promptPublished', 'string'],
  ['welcome', 'object'],
  ['voice', 'object'],
  ['llmModel', 'string'],
  ['language', 'string'],
  ['enabledTools', 'string[]'],
  ['toolConfigs', 'object'],
  ['webhookUrl', 'string'],
  ['agentType', 'string', false, ['inbound', 'outbound']],
  ['role', 'string', false, ['reception', 'booking', 'sales', 'followup']],
  // "read-only fields of the agent (identifier, timestamps)": named by us.
  ['id', 'string'],
  ['createdAt', 'timestamp'],
  ['updatedAt', 'timestamp'],
]

const AVAILABLE_NUMBER: Row[] = [
  ['phoneNumber', 'string'],
  ['friendlyName', 'string'],
  ['locality', 'string'],
  ['region', 'string'],
  ['isoCountry', 'string'],
  ['capabilities', 'object'],
]

const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/

function checkShape(what: string, value: Record<string, unknown>, rows: Row[]): void {
  for (const [field, kind, nullable, values] of rows) {
    const v = value[field]
    const where = `${what}.${field}`
    expect({ where, present: field in value }).toEqual({ where, present: true })
    if (v === null) {
      expect({ where, nullable: Boolean(nullable) }).toEqual({ where, nullable: true })
      continue
    }
    const ok =
      kind === 'string' ? typeof v === 'string'
      : kind === 'timestamp' ? typeof v === 'string' && ISO_UTC.test(v)
      : kind === 'boolean' ? typeof v === 'boolean'
      : kind === 'string[]' ? Array.isArray(v) && v.every((x) => typeof x === 'string')
      : typeof v === 'object' && !Array.isArray(v)
    expect({ where, kind, ok }).toEqual({ where, kind, ok: true })
    if (values) expect(values).toContain(v as string)
  }
}

let t: TestAppliance
let twilio: FakeTwilio
beforeAll(async () => {
  twilio = startFakeTwilio()
  t = await startTestAppliance({ CARRIER_API_BASE: twilio.url, CARRIER_ACCOUNT_SID: twilio.accountSid, CARRIER_AUTH_TOKEN: twilio.authToken })
  await t.api('POST', `/api/workspaces/${t.workspaceId}/payment-methods`, { body: { provider: 'manual', reference: 'shapes' } })
})
afterAll(async () => {
  await t.stop()
  await twilio.stop()
})

describe('response shapes match the spec tables field by field', () => {
  test('Agent in create, get, list, PUT ({agent: <full object>}) and publish responses', async () => {
    const made = await t.api('POST', '/api/agents', {
      body: { name: 'Shape', promptDraft: 'd', webhookUrl: 'https://93.184.216.34/h', enabledTools: ['end_call'], agentType: 'outbound', role: 'followup' },
    })
    const id = made.body.agent.id
    const responses = {
      create: made.body.agent,
      get: (await t.api('GET', `/api/agents/${id}`)).body.agent,
      list: (await t.api('GET', '/api/agents')).body.agents[0],
      put: (await t.api('PUT', `/api/agents/${id}`, { body: { language: 'fr-FR' } })).body.agent,
      publish: (await t.api('POST', `/api/agents/${id}/publish`)).body.agent,
    }
    for (const [name, agent] of Object.entries(responses)) checkShape(`agent(${name})`, agent, AGENT)
    expect(responses.put).toEqual({ ...responses.get, language: 'fr-FR', version: 2, updatedAt: responses.put.updatedAt })
    checkShape('welcome', responses.get.welcome, [['mode', 'string', false, ['agent_speaks_first', 'user_speaks_first']], ['message', 'string']])
    checkShape('voice', responses.get.voice, [['provider', 'string'], ['voiceId', 'string']])
  })

  test('PhoneNumber in connect, get, list and PATCH responses; a connected SIP number is unconfigured/connected', async () => {
    const made = await t.api('POST', '/api/phone-numbers', { body: { e164: '+14155550188', sipTerminationUri: 'sip:pbx.example.com', sipPassword: 'pw-123456', sipUsername: 'u' } })
    expect(made.body.phoneNumber).toMatchObject({ provider: 'sip', status: 'unconfigured', source: 'connected', inboundAgentId: null, outboundAgentId: null })
    const id = made.body.phoneNumber.id
    const responses = {
      create: made.body.phoneNumber,
      get: (await t.api('GET', `/api/phone-numbers/${id}`)).body.phoneNumber,
      list: (await t.api('GET', '/api/phone-numbers')).body.phoneNumbers[0],
      patch: (await t.api('PATCH', `/api/phone-numbers/${id}`, { body: { label: 'L' } })).body.phoneNumber,
    }
    for (const [name, n] of Object.entries(responses)) {
      checkShape(`phoneNumber(${name})`, n, PHONE_NUMBER)
      expect(n).not.toHaveProperty('sipPassword')
    }
  })

  test('available numbers: all strings except capabilities {voice, SMS, MMS} booleans, and nothing else', async () => {
    const r = await t.api('GET', `/api/workspaces/${t.workspaceId}/carrier/available-numbers?country=US&area_code=415`)
    expect(Object.keys(r.body)).toEqual(['numbers'])
    expect(r.body.numbers.length).toBeGreaterThan(0)
    for (const n of r.body.numbers) {
      expect(Object.keys(n).sort()).toEqual(['capabilities', 'friendlyName', 'isoCountry', 'locality', 'phoneNumber', 'region'])
      checkShape('number', n, AVAILABLE_NUMBER)
      expect(Object.keys(n.capabilities).sort()).toEqual(['MMS', 'SMS', 'voice'])
      checkShape('capabilities', n.capabilities, [['voice', 'boolean'], ['SMS', 'boolean'], ['MMS', 'boolean']])
    }
  })

  test('buy-number answers {phoneNumber} with the PhoneNumber shape', async () => {
    const r = await t.api('POST', `/api/workspaces/${t.workspaceId}/carrier/buy-number`, { body: { phoneNumber: '+14155550124' } })
    expect(r.status).toBe(200)
    expect(Object.keys(r.body)).toEqual(['phoneNumber'])
    checkShape('phoneNumber(buy)', r.body.phoneNumber, PHONE_NUMBER)
    expect(r.body.phoneNumber).toMatchObject({ provider: 'carrier', source: 'purchased' })
  })
})
