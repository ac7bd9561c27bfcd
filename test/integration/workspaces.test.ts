import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { apiClient, memberKey, startTestAppliance, type TestAppliance } from '../helpers/appliance.ts'

let t: TestAppliance
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/

beforeAll(async () => {
  t = await startTestAppliance()
})
afterAll(() => t.stop())

describe('workspaces', () => {
  test('the first start made workspace "Default" with the bootstrap admin', async () => {
    const r = await t.api('GET', `/api/workspaces/${t.workspaceId}`)
    expect(r.status).toBe(200)
    expect(r.body.workspace).toMatchObject({ id: t.workspaceId, name: 'Default' })
    const members = await t.api('GET', `/api/workspaces/${t.workspaceId}/members`)
    expect(members.body.members).toEqual([expect.objectContaining({ email: 'admin@localhost', role: 'admin' })])
  })

  test('PATCH renames the workspace and answers {workspace: {id, name, updatedAt}}', async () => {
    const before = await t.api('GET', `/api/workspaces/${t.workspaceId}`)
    const r = await t.api('PATCH', `/api/workspaces/${t.workspaceId}`, { body: { name: '  Front desk  ' } })
    expect(r.status).toBe(200)
    expect(Object.keys(r.body.workspace).sort()).toEqual(['id', 'name', 'updatedAt'])
    expect(r.body.workspace).toMatchObject({ id: t.workspaceId, name: 'Front desk' })
    expect(r.body.workspace.updatedAt).toMatch(ISO)
    expect(r.body.workspace.updatedAt >= before.body.workspace.updatedAt).toBe(true)
    expect((await t.api('GET', `/api/workspaces/${t.workspaceId}`)).body.workspace.name).toBe('Front desk')
  })

  test('PATCH refuses an empty or blank name and changes nothing', async () => {
    for (const name of ['', '   ']) {
      const r = await t.api('PATCH', `/api/workspaces/${t.workspaceId}`, { body: { name } })
      expect(r.status).toBe(422)
      expect(r.body.error.details.fields[0].path).toBe('name')
    }
    expect((await t.api('GET', `/api/workspaces/${t.workspaceId}`)).body.workspace.name).toBe('Front desk')
  })

  test('POST /api/workspaces makes the caller admin and returns a first admin key that acts in the new workspace', async () => {
    const r = await t.api('POST', '/api/workspaces', { body: { name: 'Second site' } })
    expect(r.status).toBe(200)
    expect(r.body.workspace.name).toBe('Second site')
    expect(r.body.apiKey.key).toStartWith('vak_')
    const second = apiClient(t.url, r.body.apiKey.key)
    const got = await second('GET', `/api/workspaces/${r.body.workspace.id}`)
    expect(got.body.workspace.id).toBe(r.body.workspace.id)
    const members = await second('GET', `/api/workspaces/${r.body.workspace.id}/members`)
    expect(members.body.members).toEqual([expect.objectContaining({ email: 'admin@localhost', role: 'admin' })])
    // The admin's list shows both workspaces with the role held in each, newest first.
    const list = await t.api('GET', '/api/workspaces')
    expect(list.body.workspaces.map((w: { name: string; role: string }) => `${w.name}:${w.role}`)).toEqual(['Second site:admin', 'Front desk:admin'])
    // A key acts only inside its own workspace.
    expect((await t.api('GET', `/api/workspaces/${r.body.workspace.id}`)).status).toBe(404)
  })

  test("only an admin key of the operator's workspace creates workspaces: a member, and the admin of a workspace it made, get 403 and nothing is made", async () => {
    const member = await memberKey(t, 'quota-hunter@example.com')
    const byMember = await t.api('POST', '/api/workspaces', { body: { name: 'Fresh quotas' }, key: member.key })
    expect([byMember.status, byMember.body.error.code, byMember.body.error.details.permission]).toEqual([403, 'forbidden', 'workspaces:create'])
    const made = await t.api('POST', '/api/workspaces', { body: { name: 'Tenant' } })
    const tenantAdmin = apiClient(t.url, made.body.apiKey.key)
    const byTenant = await tenantAdmin('POST', '/api/workspaces', { body: { name: 'Tenant two' } })
    expect([byTenant.status, byTenant.body.error.message]).toEqual([403, "creating a workspace takes an admin key of the operator's workspace (the first one, made at first start)"])
    const names = (await t.api('GET', '/api/workspaces')).body.workspaces.map((w: { name: string }) => w.name)
    expect(names).not.toContain('Fresh quotas')
    expect(names).not.toContain('Tenant two')
  })
})

describe('members', () => {
  test('inviting answers {member: {userId, email, role, joinedAt}} (and grants, none) with role member by default', async () => {
    const r = await t.api('POST', `/api/workspaces/${t.workspaceId}/members`, { body: { email: 'Ada@Example.com' } })
    expect(r.status).toBe(200)
    expect(Object.keys(r.body.member).sort()).toEqual(['email', 'grants', 'joinedAt', 'role', 'userId'])
    expect(r.body.member).toMatchObject({ email: 'ada@example.com', role: 'member', grants: [] })
    expect(r.body.member.joinedAt).toMatch(ISO)
  })

  test('inviting an existing member is 409 and adds nobody', async () => {
    const before = (await t.api('GET', `/api/workspaces/${t.workspaceId}/members`)).body.members.length
    const r = await t.api('POST', `/api/workspaces/${t.workspaceId}/members`, { body: { email: 'ada@example.com', role: 'admin' } })
    expect(r.status).toBe(409)
    expect(r.body.error.code).toBe('conflict')
    const after = (await t.api('GET', `/api/workspaces/${t.workspaceId}/members`)).body.members
    expect(after.length).toBe(before)
    expect(after.find((m: { email: string }) => m.email === 'ada@example.com').role).toBe('member')
  })

  test('invite validation names the field: email required and valid, role member|admin', async () => {
    const path = `/api/workspaces/${t.workspaceId}/members`
    const cases: [unknown, string][] = [
      [{}, 'email'],
      [{ email: 'not-an-email' }, 'email'],
      [{ email: 'bob@example.com', role: 'owner' }, 'role'],
    ]
    for (const [body, field] of cases) {
      const r = await t.api('POST', path, { body })
      expect(r.status).toBe(422)
      expect(r.body.error.code).toBe('validation_failed')
      expect(r.body.error.details.fields.map((f: { path: string }) => f.path)).toContain(field)
    }
  })

  test('a user can belong to several workspaces', async () => {
    const other = await t.api('POST', '/api/workspaces', { body: { name: 'Shared' } })
    const otherApi = apiClient(t.url, other.body.apiKey.key)
    const r = await otherApi('POST', `/api/workspaces/${other.body.workspace.id}/members`, { body: { email: 'ada@example.com', role: 'admin' } })
    expect(r.status).toBe(200)
    const here = (await t.api('GET', `/api/workspaces/${t.workspaceId}/members`)).body.members.find((m: { email: string }) => m.email === 'ada@example.com')
    expect(r.body.member.userId).toBe(here.userId)
    expect(r.body.member.role).toBe('admin')
    expect(here.role).toBe('member')
  })

  test('PATCH changes a role and the key of that member gains the permission at once', async () => {
    const { key, userId } = await memberKey(t, 'promote@example.com')
    const asMember = apiClient(t.url, key)
    expect((await asMember('GET', `/api/workspaces/${t.workspaceId}/api-keys`)).status).toBe(403)
    const r = await t.api('PATCH', `/api/workspaces/${t.workspaceId}/members/${userId}`, { body: { role: 'admin' } })
    expect(r.status).toBe(200)
    expect(r.body.member).toMatchObject({ userId, role: 'admin', email: 'promote@example.com' })
    expect((await asMember('GET', `/api/workspaces/${t.workspaceId}/api-keys`)).status).toBe(200)
  })

  test('DELETE removes a member and their keys stop working', async () => {
    const { key, userId } = await memberKey(t, 'leaver@example.com')
    const asLeaver = apiClient(t.url, key)
    expect((await asLeaver('GET', `/api/workspaces/${t.workspaceId}`)).status).toBe(200)
    const r = await t.api('DELETE', `/api/workspaces/${t.workspaceId}/members/${userId}`)
    expect(r.status).toBe(200)
    expect(r.body).toEqual({ ok: true })
    expect((await asLeaver('GET', `/api/workspaces/${t.workspaceId}`)).status).toBe(401)
    const members = (await t.api('GET', `/api/workspaces/${t.workspaceId}/members`)).body.members
    expect(members.some((m: { userId: string }) => m.userId === userId)).toBe(false)
    expect((await t.api('DELETE', `/api/workspaces/${t.workspaceId}/members/${userId}`)).status).toBe(404)
  })

  test('the last admin can be neither demoted nor removed', async () => {
    const created = await t.api('POST', '/api/workspaces', { body: { name: 'Solo' } })
    const solo = apiClient(t.url, created.body.apiKey.key)
    const ws = created.body.workspace.id
    const admin = (await solo('GET', `/api/workspaces/${ws}/members`)).body.members[0]
    const demote = await solo('PATCH', `/api/workspaces/${ws}/members/${admin.userId}`, { body: { role: 'member' } })
    expect(demote.status).toBe(409)
    expect(demote.body.error.code).toBe('last_admin')
    const remove = await solo('DELETE', `/api/workspaces/${ws}/members/${admin.userId}`)
    expect(remove.status).toBe(409)
    expect(remove.body.error.code).toBe('last_admin')
    expect((await solo('GET', `/api/workspaces/${ws}/members`)).body.members).toEqual([expect.objectContaining({ role: 'admin' })])
    // With a second admin, the first may step down.
    await solo('POST', `/api/workspaces/${ws}/members`, { body: { email: 'deputy@example.com', role: 'admin' } })
    expect((await solo('PATCH', `/api/workspaces/${ws}/members/${admin.userId}`, { body: { role: 'member' } })).status).toBe(200)
  })
})
