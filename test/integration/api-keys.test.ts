import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { apiClient, startTestAppliance, type TestAppliance } from '../helpers/appliance.ts'

let t: TestAppliance
let keysPath: string

beforeAll(async () => {
  t = await startTestAppliance()
  keysPath = `/api/workspaces/${t.workspaceId}/api-keys`
})
afterAll(() => t.stop())

describe('API keys', () => {
  test('creation shows the key once with prefix, last4 and expiry; lists never show it', async () => {
    const expiresAt = new Date(Date.now() + 86_400_000).toISOString()
    const r = await t.api('POST', keysPath, { body: { name: 'ci', expiresAt } })
    expect(r.status).toBe(200)
    const k = r.body.apiKey
    expect(Object.keys(k).sort()).toEqual(['createdAt', 'expiresAt', 'id', 'key', 'last4', 'name', 'prefix', 'userId'])
    expect(k.key).toStartWith(k.prefix)
    expect(k.key.endsWith(k.last4)).toBe(true)
    expect(k.expiresAt).toBe(expiresAt)
    const list = await t.api('GET', keysPath)
    const listed = list.body.apiKeys.find((x: { id: string }) => x.id === k.id)
    expect(listed).toEqual({ id: k.id, name: 'ci', prefix: k.prefix, last4: k.last4, userId: k.userId, createdAt: k.createdAt, expiresAt })
    expect(JSON.stringify(list.body)).not.toContain(k.key)
    expect((await apiClient(t.url, k.key)('GET', `/api/workspaces/${t.workspaceId}`)).status).toBe(200)
  })

  test('only a hash of the key is stored', async () => {
    const r = await t.api('POST', keysPath, { body: { name: 'stored' } })
    const row = await t.appliance.database.db.selectFrom('api_keys').selectAll().where('id', '=', r.body.apiKey.id).executeTakeFirstOrThrow()
    expect(Object.values(row)).not.toContain(r.body.apiKey.key)
    expect(JSON.stringify(row)).not.toContain(r.body.apiKey.key.slice(12))
  })

  test('a revoked key stops working at once and leaves the list', async () => {
    const r = await t.api('POST', keysPath, { body: { name: 'temp' } })
    const temp = apiClient(t.url, r.body.apiKey.key)
    expect((await temp('GET', `/api/workspaces/${t.workspaceId}`)).status).toBe(200)
    expect((await t.api('DELETE', `${keysPath}/${r.body.apiKey.id}`)).body).toEqual({ ok: true })
    const after = await temp('GET', `/api/workspaces/${t.workspaceId}`)
    expect(after.status).toBe(401)
    expect((await t.api('GET', keysPath)).body.apiKeys.some((x: { id: string }) => x.id === r.body.apiKey.id)).toBe(false)
    expect((await t.api('DELETE', `${keysPath}/${r.body.apiKey.id}`)).status).toBe(404)
  })

  test('a revoked key and an unknown key get the same 401, so a leaked string does not tell whether it was ever a key', async () => {
    const r = await t.api('POST', keysPath, { body: { name: 'to revoke' } })
    await t.api('DELETE', `${keysPath}/${r.body.apiKey.id}`)
    const revoked = await apiClient(t.url, r.body.apiKey.key)('GET', `/api/workspaces/${t.workspaceId}`)
    const unknown = await apiClient(t.url, `${r.body.apiKey.prefix}${'x'.repeat(r.body.apiKey.key.length - r.body.apiKey.prefix.length)}`)('GET', `/api/workspaces/${t.workspaceId}`)
    expect([revoked.status, unknown.status]).toEqual([401, 401])
    expect(revoked.body.error.message).toBe(unknown.body.error.message)
    expect(revoked.body.error.message).not.toContain('revoked')
    expect(revoked.body.error.code).toBe(unknown.body.error.code)
  })

  test('the Bearer scheme name is case-insensitive (RFC 9110)', async () => {
    for (const scheme of ['bearer', 'BEARER', 'Bearer', 'bEaReR']) {
      const r = await fetch(`${t.url}/api/workspaces/${t.workspaceId}`, { headers: { authorization: `${scheme} ${t.adminKey}` } })
      expect({ scheme, status: r.status }).toEqual({ scheme, status: 200 })
    }
    const wrong = await fetch(`${t.url}/api/workspaces/${t.workspaceId}`, { headers: { authorization: `Basic ${t.adminKey}` } })
    expect(wrong.status).toBe(401)
  })

  test('an expiry in the past or not a date is refused and creates nothing', async () => {
    const before = (await t.api('GET', keysPath)).body.apiKeys.length
    for (const expiresAt of ['2001-01-01T00:00:00Z', 'tomorrow']) {
      const r = await t.api('POST', keysPath, { body: { name: 'bad', expiresAt } })
      expect(r.status).toBe(422)
      expect(r.body.error.details.fields[0].path).toBe('expiresAt')
    }
    expect((await t.api('GET', keysPath)).body.apiKeys.length).toBe(before)
  })

  test('an admin can create a key acting as another member, and not for a stranger', async () => {
    const inv = await t.api('POST', `/api/workspaces/${t.workspaceId}/members`, { body: { email: 'worker@example.com' } })
    const r = await t.api('POST', keysPath, { body: { name: 'worker', userId: inv.body.member.userId } })
    expect(r.status).toBe(200)
    expect(r.body.apiKey.userId).toBe(inv.body.member.userId)
    const bad = await t.api('POST', keysPath, { body: { name: 'ghost', userId: 'usr_nobody' } })
    expect(bad.status).toBe(422)
    expect(bad.body.error.details.fields[0].path).toBe('userId')
  })
})
