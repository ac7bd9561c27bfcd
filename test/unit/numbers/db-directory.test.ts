// The appliance's number directory over a real SQLite file: which INVITE source may reach which
// number, with digest credentials, trunk hosts (resolved names cached) and carrier sources.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { DbNumberDirectory } from '../../../src/features/calls/index.ts'
import { type DbHandle, migrateToLatest, openDatabase } from '../../../src/platform/db/index.ts'
import type { PhoneNumberTable } from '../../../src/features/numbers/numbers.table.ts'
import { type SecretBox, secretBoxFor } from '../../../src/platform/secrets/index.ts'

let dir: string
let handle: DbHandle
let box: SecretBox
const lookups: string[] = []

const number = (over: Partial<PhoneNumberTable> & Pick<PhoneNumberTable, 'id' | 'e164'>): PhoneNumberTable => ({
  workspace_id: 'ws_1',
  label: '',
  provider: 'sip',
  status: 'active',
  status_reason: null,
  source: 'connected',
  inbound_agent_id: null,
  outbound_agent_id: null,
  sip_termination_uri: null,
  sip_username: null,
  sip_password_enc: null,
  sip_outbound_transport: 'udp',
  sip_register: 0,
  media_encryption: 'none',
  when_busy: 'refuse',
  carrier_sid: null,
  released_at: null,
  created_at: '2026-01-01T00:00:00.000Z',
  updated_at: '2026-01-01T00:00:00.000Z',
  ...over,
})

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'db-directory-'))
  handle = openDatabase(join(dir, 'test.db'))
  await migrateToLatest(handle.db)
  box = secretBoxFor(dir)
  await handle.db.insertInto('workspaces').values({ id: 'ws_1', name: 'W', created_at: 'x', updated_at: 'x' }).execute()
  await handle.db
    .insertInto('phone_numbers')
    .values([
      number({ id: 'pn_ip', e164: '+14155550101', sip_termination_uri: 'sip:192.0.2.10:5060' }),
      number({ id: 'pn_host', e164: '+14155550102', sip_termination_uri: 'sip:pbx.example.test' }),
      number({ id: 'pn_auth', e164: '+14155550103', sip_termination_uri: 'sip:192.0.2.30', sip_username: 'desk', sip_password_enc: box.encrypt('s3cret', 'phone_numbers.sip_password:pn_auth') }),
      number({ id: 'pn_carrier', e164: '+14155550104', provider: 'carrier', source: 'purchased' }),
      number({ id: 'pn_gone', e164: '+14155550105', sip_termination_uri: 'sip:192.0.2.10', status: 'released', released_at: '2026-01-02T00:00:00.000Z' }),
    ])
    .execute()
})
afterAll(async () => {
  await handle.close()
  rmSync(dir, { recursive: true, force: true })
})

const directory = () =>
  new DbNumberDirectory(handle.db, box, {
    carrierSources: ['198.51.100.7'],
    resolveHost: async (host) => {
      lookups.push(host)
      return host === 'pbx.example.test' ? ['192.0.2.20'] : []
    },
  })
const from = (address: string) => ({ transport: 'udp' as const, address, port: 5060 })

test("a number's trunk address reaches it, in any spelling of the number; any other source gets 403", async () => {
  const d = directory()
  expect(await d.resolveInbound({ users: ['14155550101'], source: from('192.0.2.10') })).toMatchObject({ accept: true, number: '+14155550101', context: { id: 'pn_ip' } })
  expect(await d.resolveInbound({ users: ['+1 (415) 555-0101'], source: from('192.0.2.10') })).toMatchObject({ accept: true, number: '+14155550101' })
  expect(await d.resolveInbound({ users: ['14155550101'], source: from('203.0.113.9') })).toEqual({ accept: false, status: 403, why: 'not_trunk' })
})

test("a trunk host name is resolved once and its addresses cached", async () => {
  const d = directory()
  lookups.length = 0
  expect(await d.resolveInbound({ users: ['+14155550102'], source: from('192.0.2.20') })).toMatchObject({ accept: true, number: '+14155550102' })
  expect(await d.resolveInbound({ users: ['+14155550102'], source: from('192.0.2.21') })).toEqual({ accept: false, status: 403, why: 'not_trunk' })
  expect(lookups).toEqual(['pbx.example.test'])
})

test('a number with SIP credentials is open to any source behind a digest challenge with the stored password', async () => {
  const r = await directory().resolveInbound({ users: ['+14155550103'], source: from('203.0.113.9') })
  expect(r).toMatchObject({ accept: true, number: '+14155550103', credentials: { username: 'desk', password: 's3cret' } })
})

test("a bought number takes calls only from the carrier's sources; a released number takes none; an unknown number is refused alike", async () => {
  const d = directory()
  expect(await d.resolveInbound({ users: ['+14155550104'], source: from('198.51.100.7') })).toMatchObject({ accept: true, number: '+14155550104' })
  // the caller is answered alike; only the operator's log tells which
  expect(await d.resolveInbound({ users: ['+14155550104'], source: from('192.0.2.10') })).toEqual({ accept: false, status: 403, why: 'not_trunk' })
  expect(await d.resolveInbound({ users: ['+14155550105'], source: from('192.0.2.10') })).toEqual({ accept: false, status: 403, why: 'unknown_number' })
  expect(await d.resolveInbound({ users: ['+14155559999', 'desk'], source: from('192.0.2.10') })).toEqual({ accept: false, status: 403, why: 'unknown_number' })
})
