import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { startTestAppliance, type TestAppliance } from '../helpers/appliance.ts'

let t: TestAppliance
let membersPath: string

beforeAll(async () => {
  t = await startTestAppliance({ RATE_LIMIT_PER_SEC: 0 })
  membersPath = `/api/workspaces/${t.workspaceId}/members`
  for (let i = 0; i < 12; i++) {
    const r = await t.api('POST', membersPath, { body: { email: `user${String(i).padStart(2, '0')}@example.com` } })
    expect(r.status).toBe(200)
  }
})
afterAll(() => t.stop())

async function walk(path: string, key: string, limit: number, between?: (page: number) => Promise<void>) {
  const seen: string[] = []
  let cursor: string | null = null
  for (let page = 0; page < 50; page++) {
    const r = await t.api('GET', `${path}?limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`)
    expect(r.status).toBe(200)
    expect(r.body[key].length).toBeLessThanOrEqual(limit)
    seen.push(...r.body[key].map((m: { email?: string; name?: string }) => m.email ?? m.name))
    cursor = r.body.nextCursor
    if (cursor === null) return seen
    await between?.(page)
  }
  throw new Error('pagination did not end')
}

describe('pagination', () => {
  test('pages of `limit` cover every row once, newest first, ending with nextCursor null', async () => {
    const all = (await t.api('GET', `${membersPath}?limit=100`)).body.members.map((m: { email: string }) => m.email)
    expect(all.length).toBe(13)
    expect(all[0]).toBe('user11@example.com')
    expect(all.at(-1)).toBe('admin@localhost')
    expect(await walk(membersPath, 'members', 5)).toEqual(all)
  })

  test('the default page is 50 and the response keeps the resource key with nextCursor', async () => {
    const r = await t.api('GET', membersPath)
    expect(Object.keys(r.body).sort()).toEqual(['members', 'nextCursor'])
    expect(r.body.nextCursor).toBeNull()
  })

  test('pages stay correct while rows are inserted between requests', async () => {
    const before = (await t.api('GET', `${membersPath}?limit=100`)).body.members.map((m: { email: string }) => m.email)
    let n = 0
    const walked = await walk(membersPath, 'members', 4, async () => {
      await t.api('POST', membersPath, { body: { email: `late${n++}@example.com` } })
    })
    // Every row that existed when the walk began is seen exactly once and in order; rows
    // inserted meanwhile are newer than the cursor and belong to a fresh walk.
    expect(walked).toEqual(before)
    expect(n).toBeGreaterThan(2)
  })

  test('limit outside 1-100 and a foreign cursor are refused', async () => {
    for (const q of ['limit=0', 'limit=101', 'limit=abc', 'cursor=%2F%2F']) {
      const r = await t.api('GET', `${membersPath}?${q}`)
      expect(r.status).toBe(400)
    }
  })
})
