import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { Elysia } from 'elysia'
import { createAuth } from '../../src/http/auth.ts'
import { routeInventory, unguardedApiRoutes } from '../../src/http/inventory.ts'
import { PERMISSIONS } from '../../src/http/permissions.ts'
import { RateLimiter } from '../../src/http/rate-limit.ts'
import { memberKey, startTestAppliance, type TestAppliance } from '../helpers/appliance.ts'

let t: TestAppliance
let memberApiKey: string
let revokedKey: string
let expiredKey: string

/** Fills path parameters: our own workspace, and ids that exist nowhere for the rest. */
const concrete = (path: string, workspaceId: string) =>
  path.replace(':workspace_id', workspaceId).replace(/:([a-z_]+)/g, 'x_missing_$1')

beforeAll(async () => {
  // hundreds of refused keys from one address: the per-address limit on failures is tested elsewhere
  t = await startTestAppliance({ AUTH_FAILURE_BURST: 0 })
  memberApiKey = (await memberKey(t, 'member@example.com', 'member')).key
  const revoked = await t.api('POST', `/api/workspaces/${t.workspaceId}/api-keys`, { body: { name: 'to revoke' } })
  revokedKey = revoked.body.apiKey.key
  expect((await t.api('DELETE', `/api/workspaces/${t.workspaceId}/api-keys/${revoked.body.apiKey.id}`)).status).toBe(200)
  const soon = new Date(Date.now() + 60_000).toISOString()
  const expiring = await t.api('POST', `/api/workspaces/${t.workspaceId}/api-keys`, { body: { name: 'expiring', expiresAt: soon } })
  expiredKey = expiring.body.apiKey.key
  // Move the expiry into the past in the real database rather than waiting for the clock.
  await t.appliance.database.db
    .updateTable('api_keys')
    .set({ expires_at: new Date(Date.now() - 1000).toISOString() })
    .where('id', '=', expiring.body.apiKey.id)
    .execute()
})
afterAll(() => t.stop())

const apiRoutes = () => routeInventory(t.appliance.app).filter((r) => r.path.startsWith('/api'))

describe('route inventory', () => {
  test('every /api route declares a permission from the matrix', () => {
    expect(apiRoutes().length).toBeGreaterThan(10)
    expect(unguardedApiRoutes(t.appliance.app)).toEqual([])
  })

  test('the inventory check flags an /api route that declares no permission', () => {
    const auth = createAuth(() => ({ keyId: 'k', userId: 'u', workspaceId: 'w', role: 'admin' }), new RateLimiter(0, 0))
    const app = new Elysia()
      .use(auth)
      .get('/api/guarded', () => 'ok', { permission: 'agents:read' })
      .get('/api/forgotten', () => 'oops')
      .get('/health', () => 'ok')
    expect(unguardedApiRoutes(app)).toEqual(['GET /api/forgotten'])
  })
})

describe('authentication on every /api route', () => {
  const cases: [string, () => Record<string, string>][] = [
    ['missing', () => ({})],
    ['malformed', () => ({ authorization: 'Token abc' })],
    ['unknown', () => ({ authorization: 'Bearer vak_doesnotexist' })],
    ['revoked', () => ({ authorization: `Bearer ${revokedKey}` })],
    ['expired', () => ({ authorization: `Bearer ${expiredKey}` })],
  ]
  for (const [name, headers] of cases) {
    test(`a ${name} key gets 401 with the error body on every /api route`, async () => {
      for (const route of apiRoutes()) {
        const r = await t.api(route.method, concrete(route.path, t.workspaceId), { key: null, headers: headers(), body: route.method === 'GET' ? undefined : {} })
        expect({ route: `${route.method} ${route.path}`, status: r.status }).toEqual({ route: `${route.method} ${route.path}`, status: 401 })
        expect(r.body.error.code).toBe('unauthorized')
        expect(typeof r.body.error.requestId).toBe('string')
        expect(r.headers.get('www-authenticate')).toBe('Bearer')
      }
    })
  }
})

describe('role matrix', () => {
  test('a member gets 403 on every route whose permission is admin-only', async () => {
    const adminOnly = apiRoutes().filter((r) => r.permission && !(PERMISSIONS[r.permission] as readonly string[]).includes('member'))
    expect(adminOnly.length).toBeGreaterThan(5)
    for (const route of adminOnly) {
      const r = await t.api(route.method, concrete(route.path, t.workspaceId), { key: memberApiKey, body: route.method === 'GET' ? undefined : {} })
      expect({ route: `${route.method} ${route.path}`, status: r.status }).toEqual({ route: `${route.method} ${route.path}`, status: 403 })
      expect(r.body.error.code).toBe('forbidden')
    }
  })

  test('a member may read the workspace and its members but not change them', async () => {
    const ws = `/api/workspaces/${t.workspaceId}`
    expect((await t.api('GET', ws, { key: memberApiKey })).status).toBe(200)
    expect((await t.api('GET', `${ws}/members`, { key: memberApiKey })).status).toBe(200)
    expect((await t.api('PATCH', ws, { key: memberApiKey, body: { name: 'Hijacked' } })).status).toBe(403)
    expect((await t.api('GET', ws)).body.workspace.name).toBe('Default')
  })
})

describe('workspace isolation', () => {
  test('a key of workspace A gets 404 for every object of workspace B', async () => {
    const created = await t.api('POST', '/api/workspaces', { body: { name: 'B' } })
    expect(created.status).toBe(200)
    const b = created.body.workspace.id as string
    const keyB = created.body.apiKey.key as string
    const keyBId = created.body.apiKey.id as string
    const invited = await t.api('POST', `/api/workspaces/${b}/members`, { key: keyB, body: { email: 'only-in-b@example.com' } })
    const userB = invited.body.member.userId as string

    // A different user whose only workspace is A.
    const outsider = (await memberKey(t, 'outsider@example.com', 'admin')).key
    const attempts: [string, string, unknown?][] = [
      ['GET', `/api/workspaces/${b}`],
      ['PATCH', `/api/workspaces/${b}`, { name: 'taken over' }],
      ['GET', `/api/workspaces/${b}/members`],
      ['POST', `/api/workspaces/${b}/members`, { email: 'x@example.com' }],
      ['PATCH', `/api/workspaces/${b}/members/${userB}`, { role: 'admin' }],
      ['DELETE', `/api/workspaces/${b}/members/${userB}`],
      ['GET', `/api/workspaces/${b}/api-keys`],
      ['POST', `/api/workspaces/${b}/api-keys`, { name: 'sneaky' }],
      ['DELETE', `/api/workspaces/${b}/api-keys/${keyBId}`],
      // B's objects addressed through A's own paths are not found either.
      ['PATCH', `/api/workspaces/${t.workspaceId}/members/${userB}`, { role: 'admin' }],
      ['DELETE', `/api/workspaces/${t.workspaceId}/members/${userB}`],
      ['DELETE', `/api/workspaces/${t.workspaceId}/api-keys/${keyBId}`],
    ]
    for (const [method, path, body] of attempts) {
      const r = await t.api(method, path, { key: outsider, body })
      expect({ method, path, status: r.status, code: r.body.error?.code }).toEqual({ method, path, status: 404, code: 'not_found' })
    }
    const listed = await t.api('GET', '/api/workspaces', { key: outsider })
    expect(listed.body.workspaces.map((w: { id: string }) => w.id)).toEqual([t.workspaceId])
    // Nothing changed in B.
    const bNow = await t.api('GET', `/api/workspaces/${b}`, { key: keyB })
    expect(bNow.body.workspace.name).toBe('B')
    const bMembers = await t.api('GET', `/api/workspaces/${b}/members`, { key: keyB })
    expect(bMembers.body.members.map((m: { email: string; role: string }) => `${m.email}:${m.role}`).sort()).toEqual([
      'admin@localhost:admin',
      'only-in-b@example.com:member',
    ])
    expect((await t.api('GET', `/api/workspaces/${b}`, { key: keyB })).status).toBe(200)
  })
})
