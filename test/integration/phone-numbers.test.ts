import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { statSync } from 'node:fs'
import { join } from 'node:path'
import { findNumbersByE164, reportTrunkHealth } from '../../src/features/numbers/index.ts'
import { secretBoxFor } from '../../src/platform/secrets/index.ts'
import { type Api, type ApiResponse, apiClient, memberKey, startTestAppliance, type TestAppliance } from '../helpers/appliance.ts'
import { type FakeTwilio, startFakeTwilio } from '../fakes/twilio.ts'
import { startLoggedAppliance } from '../helpers/logged-appliance.ts'

const PASSWORD = 'Tr0ub4dor&3-sip-secret'
let t: Awaited<ReturnType<typeof startLoggedAppliance>>
let api: Api
let other: Api
let memberApi: Api
const seen: ApiResponse[] = []

const recording = (inner: Api): Api => async (method, path, opts) => {
  const r = await inner(method, path, opts)
  seen.push(r)
  return r
}
const paths = (r: ApiResponse): string[] => r.body.error.details.fields.map((f: { path: string }) => f.path)
const connect = (body: Record<string, unknown>, via: Api = api) =>
  via('POST', '/api/phone-numbers', { body: { sipTerminationUri: 'sip:trunk.example.com:5061', ...body } })

beforeAll(async () => {
  // this file sends hundreds of requests with one key; the per-key limit has tests of its own
  t = await startLoggedAppliance({ RATE_LIMIT_PER_SEC: 0 })
  api = recording(t.api)
  const ws = await t.api('POST', '/api/workspaces', { body: { name: 'Other' } })
  other = recording(apiClient(t.url, ws.body.apiKey.key))
  memberApi = recording(apiClient(t.url, (await memberKey(t, 'numbers-member@example.com')).key))
})
afterAll(() => t.stop())

describe('phone numbers', () => {
  test('connecting without a payment method is 402 payment_method_required and creates nothing', async () => {
    const r = await connect({ e164: '+14155550100', sipUsername: 'u', sipPassword: PASSWORD })
    expect(r.status).toBe(402)
    expect(r.body.error.code).toBe('payment_method_required')
    expect((await api('GET', '/api/phone-numbers')).body.phoneNumbers).toEqual([])
    const pm = await api('POST', `/api/workspaces/${t.workspaceId}/payment-methods`, { body: { provider: 'manual', reference: 'invoice account 77' } })
    expect(pm.status).toBe(200)
  })

  let sipNumber: any
  test('connects a SIP number: provider detected, transport tls, unconfigured, connected, no password in the body', async () => {
    const r = await connect({ e164: '+14155550101', label: 'Front desk', sipUsername: 'trunkuser', sipPassword: PASSWORD })
    expect(r.status).toBe(200)
    sipNumber = r.body.phoneNumber
    expect(sipNumber).toMatchObject({
      workspaceId: t.workspaceId,
      e164: '+14155550101',
      label: 'Front desk',
      provider: 'sip',
      status: 'unconfigured',
      source: 'connected',
      inboundAgentId: null,
      outboundAgentId: null,
      sipTerminationUri: 'sip:trunk.example.com:5061',
      sipUsername: 'trunkuser',
      hasSipPassword: true,
      sipOutboundTransport: 'tls',
      mediaEncryption: 'none',
    })
    expect(Object.keys(r.body)).toEqual(['phoneNumber'])
    expect(sipNumber).not.toHaveProperty('sipPassword')
  })

  test('the password is sealed at rest with a key made once in DATA_DIR, and the SIP lookup decrypts it', async () => {
    const row = await t.appliance.database.db.selectFrom('phone_numbers').selectAll().where('id', '=', sipNumber.id).executeTakeFirstOrThrow()
    expect(row.sip_password_enc).toMatch(/^v1:/)
    expect(row.sip_password_enc).not.toContain(PASSWORD)
    expect(statSync(join(t.dataDir, 'secret.key')).mode & 0o777).toBe(0o600)
    const routes = await findNumbersByE164(t.appliance.database.db, secretBoxFor(t.dataDir), '14155550101')
    expect(routes).toHaveLength(1)
    expect(routes[0]?.sip).toEqual({ terminationUri: 'sip:trunk.example.com:5061', username: 'trunkuser', password: PASSWORD, transport: 'tls', register: false })
    expect(routes[0]?.mediaEncryption).toBe('none')
  })

  test('defaults the label to the formatted number and keeps an explicit transport', async () => {
    const r = await connect({ e164: '+442071838750', sipTerminationUri: 'sip:pbx.example.co.uk', sipOutboundTransport: 'udp' })
    expect(r.status).toBe(200)
    expect(r.body.phoneNumber).toMatchObject({ label: '+44 20 7183 8750', sipOutboundTransport: 'udp', hasSipPassword: false, sipUsername: null })
  })

  test('the same e164 twice in a workspace is 409 conflict; in another workspace 409 number_in_use, and nothing is created there', async () => {
    const dup = await connect({ e164: '+14155550101' })
    expect(dup.status).toBe(409)
    expect(dup.body.error.code).toBe('conflict')
    await other('POST', `/api/workspaces/${(await other('GET', '/api/workspaces')).body.workspaces[0].id}/payment-methods`, {
      body: { provider: 'manual', reference: 'other ws' },
    })
    const taken = await connect({ e164: '+14155550101', sipUsername: 'thief', sipPassword: 'thief-password' }, other)
    expect(taken.status).toBe(409)
    expect(taken.body.error).toMatchObject({ code: 'number_in_use', message: expect.stringContaining('+14155550101 is in use by another workspace'), details: { e164: '+14155550101' } })
    expect((await other('GET', '/api/phone-numbers')).body.phoneNumbers).toEqual([])
    expect((await connect({ e164: '+14155550188' }, other)).status).toBe(200)
  })

  test('two workspaces connecting the same new e164 at once: exactly one gets it, the other 409 number_in_use', async () => {
    const [a, b] = await Promise.all([connect({ e164: '+14155550177' }), connect({ e164: '+14155550177' }, other)])
    expect([a.status, b.status].sort()).toEqual([200, 409])
    expect([a, b].find((r) => r.status === 409)?.body.error.code).toBe('number_in_use')
    const live = await t.appliance.database.db.selectFrom('phone_numbers').select('workspace_id').where('e164', '=', '+14155550177').where('released_at', 'is', null).execute()
    expect(live).toHaveLength(1)
    const winner = a.status === 200 ? api : other
    const id = (a.status === 200 ? a : b).body.phoneNumber.id
    expect((await winner('DELETE', `/api/phone-numbers/${id}`)).status).toBe(200)
  })

  test.each([
    [{ e164: '4155550101' }, ['e164']],
    [{ e164: '+1415555' }, ['e164']],
    [{ e164: '+1 415 555 0102' }, ['e164']],
    [{ e164: '+14155550102', sipTerminationUri: 'trunk.example.com' }, ['sipTerminationUri']],
    [{ e164: '+14155550102', sipTerminationUri: 'sip:host:99999' }, ['sipTerminationUri']],
    [{ e164: '+14155550102', sipTerminationUri: 'sips:secure.example.com', sipOutboundTransport: 'udp' }, ['sipOutboundTransport']],
    [{ e164: '+14155550102', sipPassword: 'x-secret' }, ['sipUsername']],
    [{ e164: '+14155550102', sipOutboundTransport: 'sctp' }, ['sipOutboundTransport']],
    [{ e164: 'bogus', sipTerminationUri: 'nope' }, ['e164', 'sipTerminationUri']],
  ])('refuses %o naming %p', async (body, fields) => {
    const r = await connect(body)
    expect([400, 422]).toContain(r.status)
    expect(r.body.error.code).toBe('validation_failed')
    expect(paths(r).sort()).toEqual(fields)
  })

  test.each([
    'sip:169.254.169.254:80;transport=tcp',
    'sip:+14155550102@169.254.169.254',
    'sip:100.100.100.200',
    'sip:[fd00:ec2::254]',
    'sip:[::ffff:a9fe:a9fe]',
    'sip:169.254.10.1',
    'sip:[fe80::1]',
    'sip:224.0.0.1',
    'sip:[ff02::1]',
    'sip:0.0.0.0',
    'sip:metadata.google.internal',
    'sip:trunk.example.com;maddr=169.254.169.254',
    'sip:127.0.0.1:5060;maddr=127.0.0.1',
  ])('refuses the trunk %s at save, naming sipTerminationUri, and creates nothing', async (uri) => {
    const r = await connect({ e164: '+14155550106', sipTerminationUri: uri, sipOutboundTransport: 'udp' })
    expect(r.status).toBe(422)
    expect(r.body.error.details.fields).toEqual([{ path: 'sipTerminationUri', message: expect.stringMatching(/^refused: /) }])
    expect((await api('GET', '/api/phone-numbers')).body.phoneNumbers.map((n: any) => n.e164)).not.toContain('+14155550106')
  })

  test('loopback, private and public trunks are accepted (a PBX on this host or LAN is the normal case)', async () => {
    for (const [i, uri] of ['sip:127.0.0.1:5999', 'sip:10.0.0.5:5060', 'sip:192.168.1.20', 'sip:[fd12:3456::1]', 'sip:203.0.113.7;transport=tcp'].entries()) {
      const r = await connect({ e164: `+1415555017${i}`, sipTerminationUri: uri, sipOutboundTransport: 'udp' })
      expect(r.status, JSON.stringify(r.body)).toBe(200)
      expect((await api('DELETE', `/api/phone-numbers/${r.body.phoneNumber.id}`)).status).toBe(200)
    }
  })

  test('a password of the wrong type is refused without echoing its value', async () => {
    const r = await connect({ e164: '+14155550105', sipUsername: 'u', sipPassword: 987654321 })
    expect(r.status).toBe(422)
    expect(paths(r)).toEqual(['sipPassword'])
    expect(JSON.stringify(r.body)).not.toContain('987654321')
  })

  test('provider sip without a termination URI, or carrier with SIP fields, is refused', async () => {
    const sip = await api('POST', '/api/phone-numbers', { body: { e164: '+14155550103', provider: 'sip' } })
    expect(sip.status).toBe(422)
    expect(paths(sip)).toEqual(['sipTerminationUri'])
    const carrier = await api('POST', '/api/phone-numbers', { body: { e164: '+14155550103', provider: 'carrier', sipUsername: 'x' } })
    expect(carrier.status).toBe(422)
    expect(paths(carrier)).toEqual(['sipUsername'])
  })

  test('lists and gets numbers of the own workspace only', async () => {
    const list = await api('GET', '/api/phone-numbers')
    expect(list.status).toBe(200)
    expect(list.body.phoneNumbers.map((n: any) => n.e164)).toEqual(['+442071838750', '+14155550101'])
    expect(list.body.nextCursor).toBeNull()
    expect((await api('GET', `/api/phone-numbers/${sipNumber.id}`)).body).toEqual({ phoneNumber: sipNumber })
    const theirs = (await other('GET', '/api/phone-numbers')).body.phoneNumbers[0]
    expect((await api('GET', `/api/phone-numbers/${theirs.id}`)).status).toBe(404)
    expect((await api('PATCH', `/api/phone-numbers/${theirs.id}`, { body: { label: 'mine' } })).status).toBe(404)
    expect((await api('DELETE', `/api/phone-numbers/${theirs.id}`)).status).toBe(404)
  })

  test('members may read numbers but not add, change or release them', async () => {
    expect((await memberApi('GET', '/api/phone-numbers')).status).toBe(200)
    expect((await memberApi('GET', `/api/phone-numbers/${sipNumber.id}`)).status).toBe(200)
    expect((await connect({ e164: '+14155550104' }, memberApi)).status).toBe(403)
    expect((await memberApi('PATCH', `/api/phone-numbers/${sipNumber.id}`, { body: { label: 'x' } })).status).toBe(403)
    expect((await memberApi('DELETE', `/api/phone-numbers/${sipNumber.id}`)).status).toBe(403)
  })

  test('every GET route of the API answers without the SIP password', async () => {
    expect((await api('GET', `/api/phone-numbers/${sipNumber.id}`)).body.phoneNumber.hasSipPassword).toBe(true)
    const agent = (await api('POST', '/api/agents', { body: { name: 'Sweep' } })).body.agent
    const values: Record<string, string> = { workspace_id: t.workspaceId, id: sipNumber.id }
    let swept = 0
    for (const route of t.appliance.app.routes) {
      if (route.method !== 'GET' || !route.path.startsWith('/api/')) continue
      const params = [...route.path.matchAll(/:([a-z_]+)/g)].map((m) => m[1] as string)
      if (params.some((p) => !(p in values))) continue
      const ids = route.path.startsWith('/api/agents') ? [agent.id] : [sipNumber.id]
      for (const id of ids) {
        const r = await api('GET', route.path.replace(/:([a-z_]+)/g, (_, p: string) => (p === 'id' ? id : (values[p] as string))))
        expect(r.status).toBeLessThan(500)
        // an empty body (an export with nothing to export) has nothing to leak
        expect(JSON.stringify(r.body ?? '')).not.toContain(PASSWORD)
        swept++
      }
    }
    expect(swept).toBeGreaterThan(8)
  })

  test('assigning agents: same workspace and matching type; status follows; an assigned agent cannot be deleted', async () => {
    const inbound = (await api('POST', '/api/agents', { body: { name: 'In' } })).body.agent
    const outbound = (await api('POST', '/api/agents', { body: { name: 'Out', agentType: 'outbound' } })).body.agent
    const foreign = (await other('POST', '/api/agents', { body: { name: 'Foreign' } })).body.agent
    const bad = await api('PATCH', `/api/phone-numbers/${sipNumber.id}`, { body: { inboundAgentId: foreign.id, outboundAgentId: inbound.id } })
    expect(bad.status).toBe(422)
    expect(paths(bad).sort()).toEqual(['inboundAgentId', 'outboundAgentId'])
    expect((await api('GET', `/api/phone-numbers/${sipNumber.id}`)).body.phoneNumber.status).toBe('unconfigured')

    const ok = await api('PATCH', `/api/phone-numbers/${sipNumber.id}`, { body: { inboundAgentId: inbound.id, outboundAgentId: outbound.id, label: 'Main line' } })
    expect(ok.status).toBe(200)
    expect(ok.body.phoneNumber).toMatchObject({ inboundAgentId: inbound.id, outboundAgentId: outbound.id, status: 'active', label: 'Main line' })

    const retype = await api('PUT', `/api/agents/${inbound.id}`, { body: { agentType: 'outbound' } })
    expect(retype.status).toBe(422)
    expect(paths(retype)).toEqual(['agentType'])
    expect((await api('PATCH', `/api/phone-numbers/${sipNumber.id}`, { body: { inboundAgentId: '' } })).status).toBe(422)

    const del = await api('DELETE', `/api/agents/${inbound.id}`)
    expect(del.status).toBe(409)
    expect(del.body.error.details).toEqual({ reason: 'agent_in_use', phoneNumberIds: [sipNumber.id] })

    const off = await api('PATCH', `/api/phone-numbers/${sipNumber.id}`, { body: { inboundAgentId: null, outboundAgentId: null } })
    expect(off.body.phoneNumber).toMatchObject({ inboundAgentId: null, outboundAgentId: null, status: 'unconfigured' })
    expect((await api('DELETE', `/api/agents/${inbound.id}`)).status).toBe(200)
  })

  test('trunk failures reported by the SIP layer set error; recovery restores the status', async () => {
    const agent = (await api('POST', '/api/agents', { body: { name: 'Trunk' } })).body.agent
    await api('PATCH', `/api/phone-numbers/${sipNumber.id}`, { body: { inboundAgentId: agent.id } })
    const failed = await reportTrunkHealth(t.appliance.database.db, sipNumber.id, { ok: false, reason: 'OPTIONS timed out' })
    expect(failed).toMatchObject({ status: 'error', statusReason: 'OPTIONS timed out' })
    const label = await api('PATCH', `/api/phone-numbers/${sipNumber.id}`, { body: { label: 'still broken' } })
    expect(label.body.phoneNumber.status).toBe('error')
    const healed = await reportTrunkHealth(t.appliance.database.db, sipNumber.id, { ok: true })
    expect(healed).toMatchObject({ status: 'active', statusReason: null })
  })

  test('PATCH changes SIP settings, re-seals or clears the password, and checks them', async () => {
    const bad = await api('PATCH', `/api/phone-numbers/${sipNumber.id}`, { body: { sipTerminationUri: 'nope' } })
    expect(bad.status).toBe(422)
    expect(paths(bad)).toEqual(['sipTerminationUri'])
    const metadata = await api('PATCH', `/api/phone-numbers/${sipNumber.id}`, { body: { sipTerminationUri: 'sip:169.254.169.254:80;transport=tcp' } })
    expect(metadata.status).toBe(422)
    expect(paths(metadata)).toEqual(['sipTerminationUri'])
    const r = await api('PATCH', `/api/phone-numbers/${sipNumber.id}`, {
      body: { sipTerminationUri: 'sip:10.0.0.5:5060', sipOutboundTransport: 'udp', sipPassword: `${PASSWORD}-2` },
    })
    expect(r.status).toBe(200)
    expect(r.body.phoneNumber).toMatchObject({ sipTerminationUri: 'sip:10.0.0.5:5060', sipOutboundTransport: 'udp', hasSipPassword: true })
    const routes = await findNumbersByE164(t.appliance.database.db, secretBoxFor(t.dataDir), '+14155550101')
    expect(routes.find((n) => n.workspaceId === t.workspaceId)?.sip?.password).toBe(`${PASSWORD}-2`)
    const cleared = await api('PATCH', `/api/phone-numbers/${sipNumber.id}`, { body: { sipPassword: null, sipUsername: null } })
    expect(cleared.body.phoneNumber).toMatchObject({ hasSipPassword: false, sipUsername: null })
  })

  test('DELETE releases: the number leaves the API and its e164 can be connected again', async () => {
    expect((await api('DELETE', `/api/phone-numbers/${sipNumber.id}`)).body).toEqual({ ok: true })
    expect((await api('GET', `/api/phone-numbers/${sipNumber.id}`)).status).toBe(404)
    expect((await api('DELETE', `/api/phone-numbers/${sipNumber.id}`)).status).toBe(404)
    const row = await t.appliance.database.db.selectFrom('phone_numbers').selectAll().where('id', '=', sipNumber.id).executeTakeFirstOrThrow()
    expect(row).toMatchObject({ status: 'released', sip_password_enc: null, inbound_agent_id: null })
    const freed = await connect({ e164: '+14155550101', sipPassword: PASSWORD, sipUsername: 'again' }, other)
    expect(freed.status).toBe(200)
    expect((await connect({ e164: '+14155550101' })).body.error.code).toBe('number_in_use')
  })

  test('the SIP password never appears in any response body or log line', () => {
    expect(seen.length).toBeGreaterThan(30)
    for (const r of seen) {
      const text = JSON.stringify(r.body ?? '')
      expect(text).not.toContain(PASSWORD)
      expect(text).not.toMatch(/"sipPassword":/)
    }
    expect(t.logs.length).toBeGreaterThan(30)
    expect(t.logs.join('')).not.toContain(PASSWORD)
  })
})

const REQUIRED_OVER = (transport: string, fromDefault = false) =>
  `required${fromDefault ? ' (the MEDIA_ENCRYPTION default)' : ''} needs sipOutboundTransport tls: SDES keys travel in the SDP, ` +
  `and over ${transport} anyone on the path reads them; set sipOutboundTransport to tls or mediaEncryption to optional`

describe('phone numbers: mediaEncryption', () => {
  const ids: string[] = []
  const made = async (body: Record<string, unknown>) => {
    const r = await connect(body)
    expect(r.status, JSON.stringify(r.body)).toBe(200)
    ids.push(r.body.phoneNumber.id)
    return r.body.phoneNumber
  }
  const row = (id: string) =>
    t.appliance.database.db.selectFrom('phone_numbers').select(['media_encryption', 'sip_outbound_transport', 'status', 'updated_at']).where('id', '=', id).executeTakeFirstOrThrow()
  afterAll(async () => {
    for (const id of ids) await api('DELETE', `/api/phone-numbers/${id}`)
  })

  test.each(['none', 'optional', 'required'] as const)('%s is stored on create, returned by create, get and list, and reaches the SIP lookup', async (value) => {
    const e164 = `+1415555030${['none', 'optional', 'required'].indexOf(value)}`
    const n = await made({ e164, mediaEncryption: value })
    expect(n).toMatchObject({ e164, provider: 'sip', sipOutboundTransport: 'tls', mediaEncryption: value })
    expect((await api('GET', `/api/phone-numbers/${n.id}`)).body.phoneNumber.mediaEncryption).toBe(value)
    expect((await api('GET', '/api/phone-numbers')).body.phoneNumbers.find((x: any) => x.id === n.id).mediaEncryption).toBe(value)
    expect((await row(n.id)).media_encryption).toBe(value)
    const routes = await findNumbersByE164(t.appliance.database.db, secretBoxFor(t.dataDir), e164)
    expect(routes.map((r) => r.mediaEncryption)).toEqual([value])
  })

  test('without the field a number gets MEDIA_ENCRYPTION, none by default', async () => {
    expect(t.appliance.config.MEDIA_ENCRYPTION).toBe('none')
    expect((await made({ e164: '+14155550310', sipOutboundTransport: 'udp' })).mediaEncryption).toBe('none')
  })

  test('required with udp or tcp is refused at create, naming mediaEncryption and why; nothing is created', async () => {
    for (const [i, transport] of ['udp', 'tcp'].entries()) {
      const e164 = `+1415555032${i}`
      const r = await connect({ e164, sipTerminationUri: 'sip:pbx.example.com', sipOutboundTransport: transport, mediaEncryption: 'required' })
      expect(r.status).toBe(422)
      expect(r.body.error.code).toBe('validation_failed')
      expect(r.body.error.details.fields).toEqual([{ path: 'mediaEncryption', message: REQUIRED_OVER(transport) }])
      expect((await api('GET', '/api/phone-numbers')).body.phoneNumbers.map((n: any) => n.e164)).not.toContain(e164)
    }
    // a sips: URI over udp is refused for its own reason as well
    const sips = await connect({ e164: '+14155550322', sipTerminationUri: 'sips:pbx.example.com', sipOutboundTransport: 'udp', mediaEncryption: 'required' })
    expect(sips.status).toBe(422)
    expect(paths(sips).sort()).toEqual(['mediaEncryption', 'sipOutboundTransport'])
  })

  test('PATCH sets it, alone or with other fields; required on a udp number is refused and changes nothing', async () => {
    const n = await made({ e164: '+14155550330', sipTerminationUri: 'sip:pbx.example.com', sipOutboundTransport: 'udp' })
    const optional = await api('PATCH', `/api/phone-numbers/${n.id}`, { body: { mediaEncryption: 'optional' } })
    expect(optional.status).toBe(200)
    expect(optional.body.phoneNumber).toMatchObject({ mediaEncryption: 'optional', sipOutboundTransport: 'udp' })
    const before = await row(n.id)

    const refused = await api('PATCH', `/api/phone-numbers/${n.id}`, { body: { mediaEncryption: 'required', label: 'secure?' } })
    expect(refused.status).toBe(422)
    expect(refused.body.error.details.fields).toEqual([{ path: 'mediaEncryption', message: REQUIRED_OVER('udp') }])
    expect((await api('GET', `/api/phone-numbers/${n.id}`)).body.phoneNumber).toMatchObject({ mediaEncryption: 'optional', sipOutboundTransport: 'udp', label: n.label })
    expect(await row(n.id)).toEqual(before)

    const both = await api('PATCH', `/api/phone-numbers/${n.id}`, { body: { mediaEncryption: 'required', sipOutboundTransport: 'tls' } })
    expect(both.status).toBe(200)
    expect(both.body.phoneNumber).toMatchObject({ mediaEncryption: 'required', sipOutboundTransport: 'tls' })
    expect((await row(n.id)).media_encryption).toBe('required')
  })

  test('a required number moved to tcp or udp is refused and stays required over tls; moving it to a sips: URI is fine', async () => {
    const n = await made({ e164: '+14155550340', mediaEncryption: 'required' })
    const before = await row(n.id)
    for (const transport of ['tcp', 'udp']) {
      const r = await api('PATCH', `/api/phone-numbers/${n.id}`, { body: { sipOutboundTransport: transport } })
      expect(r.status).toBe(422)
      expect(r.body.error.details.fields).toEqual([{ path: 'mediaEncryption', message: REQUIRED_OVER(transport) }])
    }
    expect((await api('GET', `/api/phone-numbers/${n.id}`)).body.phoneNumber).toMatchObject({ mediaEncryption: 'required', sipOutboundTransport: 'tls' })
    expect(await row(n.id)).toEqual(before)
    const sips = await api('PATCH', `/api/phone-numbers/${n.id}`, { body: { sipTerminationUri: 'sips:secure.example.com' } })
    expect(sips.status).toBe(200)
    // a transport parameter of the URI decides the wire transport, so it is held to the same rule
    const param = await api('PATCH', `/api/phone-numbers/${n.id}`, { body: { sipTerminationUri: 'sip:pbx.example.com;transport=TCP' } })
    expect(param.status).toBe(422)
    expect(param.body.error.details.fields).toEqual([{ path: 'mediaEncryption', message: expect.stringMatching(/^required needs TLS signalling, and the transport=tcp of sipTerminationUri sends the calls over tcp/) }])
    expect((await api('PATCH', `/api/phone-numbers/${n.id}`, { body: { sipTerminationUri: 'sip:pbx.example.com;transport=tls' } })).status).toBe(200)
    // the way off tls: first not required, then the transport
    expect((await api('PATCH', `/api/phone-numbers/${n.id}`, { body: { mediaEncryption: 'optional', sipTerminationUri: 'sip:pbx.example.com', sipOutboundTransport: 'tcp' } })).body.phoneNumber)
      .toMatchObject({ mediaEncryption: 'optional', sipOutboundTransport: 'tcp' })
  })

  test('changing only mediaEncryption keeps a trunk error: SRTP does not make the trunk reachable', async () => {
    const agent = (await api('POST', '/api/agents', { body: { name: 'Srtp' } })).body.agent
    const n = await made({ e164: '+14155550350' })
    await api('PATCH', `/api/phone-numbers/${n.id}`, { body: { inboundAgentId: agent.id } })
    await reportTrunkHealth(t.appliance.database.db, n.id, { ok: false, reason: 'OPTIONS timed out' })
    const r = await api('PATCH', `/api/phone-numbers/${n.id}`, { body: { mediaEncryption: 'optional' } })
    expect(r.body.phoneNumber).toMatchObject({ mediaEncryption: 'optional', status: 'error', statusReason: 'OPTIONS timed out' })
    const trunk = await api('PATCH', `/api/phone-numbers/${n.id}`, { body: { sipOutboundTransport: 'tls' } })
    expect(trunk.body.phoneNumber).toMatchObject({ status: 'active', statusReason: null })
    await api('PATCH', `/api/phone-numbers/${n.id}`, { body: { inboundAgentId: null } })
  })

  test.each([
    ['sdes', 'create'],
    ['REQUIRED', 'create'],
    [null, 'create'],
    ['sdes', 'update'],
    [true, 'update'],
  ])('%p on %s is 422 naming mediaEncryption', async (value, on) => {
    const r =
      on === 'create'
        ? await connect({ e164: '+14155550360', mediaEncryption: value })
        : await api('PATCH', `/api/phone-numbers/${ids[0]}`, { body: { mediaEncryption: value } })
    expect(r.status).toBe(422)
    expect(r.body.error.code).toBe('validation_failed')
    expect(r.body.error.details.fields).toEqual([{ path: 'mediaEncryption', location: 'body', message: 'must be none, optional or required' }])
    expect((await api('GET', '/api/phone-numbers')).body.phoneNumbers.map((n: any) => n.e164)).not.toContain('+14155550360')
    expect((await api('GET', `/api/phone-numbers/${ids[0]}`)).body.phoneNumber.mediaEncryption).toBe('none')
  })

  test('a carrier number refuses the field on create', async () => {
    const r = await api('POST', '/api/phone-numbers', { body: { e164: '+14155550370', provider: 'carrier', mediaEncryption: 'optional' } })
    expect(r.status).toBe(422)
    expect(r.body.error.details.fields).toEqual([{ path: 'mediaEncryption', message: 'is only for sip numbers' }])
    // alone, the field means a sip number, as any SIP field does
    const detected = await api('POST', '/api/phone-numbers', { body: { e164: '+14155550370', mediaEncryption: 'optional' } })
    expect(detected.status).toBe(422)
    expect(paths(detected)).toEqual(['sipTerminationUri'])
  })

  test("another workspace cannot change a number's mediaEncryption: 404, and it stays as it was", async () => {
    const n = await made({ e164: '+14155550380', sipOutboundTransport: 'udp' })
    const r = await other('PATCH', `/api/phone-numbers/${n.id}`, { body: { mediaEncryption: 'optional' } })
    expect(r.status).toBe(404)
    expect(r.body.error.code).toBe('not_found')
    expect((await api('GET', `/api/phone-numbers/${n.id}`)).body.phoneNumber.mediaEncryption).toBe('none')
  })

  test('the OpenAPI document shows mediaEncryption with its values and a description, on the number and both bodies', async () => {
    const spec = (await api('GET', '/openapi/json', { key: null })).body
    const post = spec.paths['/api/phone-numbers'].post
    const patch = spec.paths['/api/phone-numbers/{id}'].patch
    const schemas = [
      post.responses['200'].content['application/json'].schema.properties.phoneNumber.properties.mediaEncryption,
      post.requestBody.content['application/json'].schema.properties.mediaEncryption,
      patch.requestBody.content['application/json'].schema.properties.mediaEncryption,
    ]
    for (const s of schemas) {
      expect(s.description).toContain('SDES')
      expect(JSON.stringify(s)).toContain('"required"')
      expect(JSON.stringify(s)).toContain('"optional"')
    }
    expect(post.requestBody.content['application/json'].schema.properties.mediaEncryption.description).toContain('MEDIA_ENCRYPTION')
  })
})

describe('phone numbers: mediaEncryption from MEDIA_ENCRYPTION', () => {
  let d: TestAppliance
  let twilio: FakeTwilio
  beforeAll(async () => {
    twilio = startFakeTwilio()
    d = await startTestAppliance({
      MEDIA_ENCRYPTION: 'required',
      CARRIER_API_BASE: twilio.url,
      CARRIER_ACCOUNT_SID: twilio.accountSid,
      CARRIER_AUTH_TOKEN: twilio.authToken,
    })
    await d.api('POST', `/api/workspaces/${d.workspaceId}/payment-methods`, { body: { provider: 'manual', reference: 'srtp default' } })
  })
  afterAll(async () => {
    await d.stop()
    await twilio.stop()
  })

  test('a sip number created without the field gets the default; the body still wins', async () => {
    const n = await d.api('POST', '/api/phone-numbers', { body: { e164: '+14155550400', sipTerminationUri: 'sip:pbx.example.com' } })
    expect(n.status).toBe(200)
    expect(n.body.phoneNumber).toMatchObject({ sipOutboundTransport: 'tls', mediaEncryption: 'required' })
    const plain = await d.api('POST', '/api/phone-numbers', { body: { e164: '+14155550401', sipTerminationUri: 'sip:pbx.example.com', sipOutboundTransport: 'udp', mediaEncryption: 'none' } })
    expect(plain.body.phoneNumber).toMatchObject({ sipOutboundTransport: 'udp', mediaEncryption: 'none' })
    // stored at create: an update of another field does not bring the default back
    const patched = await d.api('PATCH', `/api/phone-numbers/${plain.body.phoneNumber.id}`, { body: { sipOutboundTransport: 'tcp' } })
    expect(patched.body.phoneNumber).toMatchObject({ sipOutboundTransport: 'tcp', mediaEncryption: 'none' })
  })

  test('the default required with udp is refused, and the message says the value came from MEDIA_ENCRYPTION', async () => {
    const r = await d.api('POST', '/api/phone-numbers', { body: { e164: '+14155550402', sipTerminationUri: 'sip:pbx.example.com', sipOutboundTransport: 'udp' } })
    expect(r.status).toBe(422)
    expect(r.body.error.details.fields).toEqual([{ path: 'mediaEncryption', message: REQUIRED_OVER('udp', true) }])
    expect((await d.api('GET', '/api/phone-numbers')).body.phoneNumbers.map((n: any) => n.e164)).not.toContain('+14155550402')
  })

  test('a bought number is none whatever the default, and refuses the field on PATCH', async () => {
    const r = await d.api('POST', `/api/workspaces/${d.workspaceId}/carrier/buy-number`, { body: { phoneNumber: '+14155550123' } })
    expect(r.status).toBe(200)
    expect(r.body.phoneNumber).toMatchObject({ provider: 'carrier', mediaEncryption: 'none' })
    const id = r.body.phoneNumber.id
    const patch = await d.api('PATCH', `/api/phone-numbers/${id}`, { body: { mediaEncryption: 'optional' } })
    expect(patch.status).toBe(422)
    expect(patch.body.error.details.fields).toEqual([{ path: 'mediaEncryption', message: 'is only for sip numbers' }])
    expect((await d.api('GET', `/api/phone-numbers/${id}`)).body.phoneNumber.mediaEncryption).toBe('none')
    const routes = await findNumbersByE164(d.appliance.database.db, secretBoxFor(d.dataDir), '+14155550123')
    expect(routes.map((x) => x.mediaEncryption)).toEqual(['none'])
  })
})

describe('phone numbers: agents assigned at creation', () => {
  let c: TestAppliance
  let twilio: FakeTwilio
  let inbound: string
  let outbound: string
  let foreign: string
  beforeAll(async () => {
    twilio = startFakeTwilio()
    c = await startTestAppliance({ CARRIER_API_BASE: twilio.url, CARRIER_ACCOUNT_SID: twilio.accountSid, CARRIER_AUTH_TOKEN: twilio.authToken })
    await c.api('POST', `/api/workspaces/${c.workspaceId}/payment-methods`, { body: { provider: 'manual', reference: 'agents at creation' } })
    inbound = (await c.api('POST', '/api/agents', { body: { name: 'In' } })).body.agent.id
    outbound = (await c.api('POST', '/api/agents', { body: { name: 'Out', agentType: 'outbound' } })).body.agent.id
    const ws = await c.api('POST', '/api/workspaces', { body: { name: 'Elsewhere' } })
    foreign = (await apiClient(c.url, ws.body.apiKey.key)('POST', '/api/agents', { body: { name: 'Theirs' } })).body.agent.id
  })
  afterAll(async () => {
    await c.stop()
    await twilio.stop()
  })
  const e164s = async () => (await c.api('GET', '/api/phone-numbers')).body.phoneNumbers.map((n: any) => n.e164)

  test('a SIP number connected with its agents has them and is active at once', async () => {
    const r = await c.api('POST', '/api/phone-numbers', { body: { e164: '+14155550501', sipTerminationUri: 'sip:pbx.example.com', inboundAgentId: inbound, outboundAgentId: outbound } })
    expect(r.status, JSON.stringify(r.body)).toBe(200)
    expect(r.body.phoneNumber).toMatchObject({ inboundAgentId: inbound, outboundAgentId: outbound, status: 'active', provider: 'sip' })
    expect((await c.api('GET', `/api/phone-numbers/${r.body.phoneNumber.id}`)).body.phoneNumber).toMatchObject({ inboundAgentId: inbound, outboundAgentId: outbound, status: 'active' })
    const one = await c.api('POST', '/api/phone-numbers', { body: { e164: '+14155550502', sipTerminationUri: 'sip:pbx.example.com', outboundAgentId: outbound, inboundAgentId: null } })
    expect(one.body.phoneNumber).toMatchObject({ inboundAgentId: null, outboundAgentId: outbound, status: 'active' })
    const none = await c.api('POST', '/api/phone-numbers', { body: { e164: '+14155550503', sipTerminationUri: 'sip:pbx.example.com', inboundAgentId: null } })
    expect(none.body.phoneNumber).toMatchObject({ inboundAgentId: null, outboundAgentId: null, status: 'unconfigured' })
  })

  test('agents are checked as PATCH checks them: of this workspace and of the slot\'s type, else 422 naming each; nothing is created', async () => {
    const wrong = await c.api('POST', '/api/phone-numbers', { body: { e164: '+14155550504', sipTerminationUri: 'sip:pbx.example.com', inboundAgentId: outbound, outboundAgentId: foreign } })
    expect(wrong.status).toBe(422)
    expect(wrong.body.error.details.fields).toEqual([
      { path: 'inboundAgentId', message: `agent ${outbound} is an outbound agent; assign an inbound agent` },
      { path: 'outboundAgentId', message: `no agent ${foreign} in this workspace` },
    ])
    const missing = await c.api('POST', '/api/phone-numbers', { body: { e164: '+14155550504', sipTerminationUri: 'sip:pbx.example.com', inboundAgentId: 'ag_00000000000000000000000000' } })
    expect(missing.body.error.details.fields).toEqual([{ path: 'inboundAgentId', message: `no agent ag_00000000000000000000000000 in this workspace` }])
    expect((await c.api('POST', '/api/phone-numbers', { body: { e164: '+14155550504', sipTerminationUri: 'sip:pbx.example.com', inboundAgentId: '' } })).status).toBe(422)
    expect(await e164s()).not.toContain('+14155550504')
  })

  test('a number bought through POST /api/phone-numbers takes its agents too; a wrong agent buys nothing', async () => {
    const bad = await c.api('POST', '/api/phone-numbers', { body: { e164: '+14155550123', provider: 'carrier', inboundAgentId: outbound } })
    expect(bad.status).toBe(422)
    expect(bad.body.error.details.fields.map((f: any) => f.path)).toEqual(['inboundAgentId'])
    expect(twilio.incoming.size).toBe(0)
    const r = await c.api('POST', '/api/phone-numbers', { body: { e164: '+14155550123', provider: 'carrier', inboundAgentId: inbound } })
    expect(r.status, JSON.stringify(r.body)).toBe(200)
    expect(r.body.phoneNumber).toMatchObject({ provider: 'carrier', source: 'purchased', inboundAgentId: inbound, outboundAgentId: null, status: 'active' })
    expect(twilio.incoming.size).toBe(1)
  })

  test('an assigned agent cannot be deleted while a number created with it holds it', async () => {
    const del = await c.api('DELETE', `/api/agents/${outbound}`)
    expect(del.status).toBe(409)
    expect(del.body.error.details.reason).toBe('agent_in_use')
  })
})
