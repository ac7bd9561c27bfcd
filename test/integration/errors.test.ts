import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { memberKey, startTestAppliance, type TestAppliance } from '../helpers/appliance.ts'

let t: TestAppliance

beforeAll(async () => {
  t = await startTestAppliance({ MAX_BODY_BYTES: 2048, RATE_LIMIT_PER_SEC: 1, RATE_LIMIT_BURST: 1000 })
})
afterAll(() => t.stop())

/** The one error body: exactly {error: {code, message, details?, requestId}}, no stack trace. */
function expectErrorBody(r: { status: number; headers: Headers; body: any }, status: number, code: string) {
  expect(r.status).toBe(status)
  expect(r.headers.get('content-type')).toContain('application/json')
  expect(Object.keys(r.body)).toEqual(['error'])
  const keys = Object.keys(r.body.error).sort()
  expect(keys.filter((k) => k !== 'details')).toEqual(['code', 'message', 'requestId'])
  expect(r.body.error.code).toBe(code)
  expect(r.body.error.message.length).toBeGreaterThan(0)
  expect(r.body.error.requestId).toBe(r.headers.get('x-request-id'))
  expect(JSON.stringify(r.body)).not.toMatch(/\bat .*\.ts:\d+|stack/i)
}

describe('one error body for every 4xx and 5xx', () => {
  const ws = () => `/api/workspaces/${t.workspaceId}`

  test('400: malformed JSON and an invalid cursor', async () => {
    expectErrorBody(await t.api('PATCH', ws(), { body: '{"name": ' }), 400, 'bad_request')
    const r = await t.api('GET', `${ws()}/members?cursor=garbage`)
    expectErrorBody(r, 400, 'bad_request')
    expect(r.body.error.details.fields[0].path).toBe('cursor')
  })

  test('400: a query parameter out of range names it', async () => {
    const r = await t.api('GET', `${ws()}/members?limit=101`)
    expectErrorBody(r, 400, 'validation_failed')
    expect(r.body.error.details.fields[0]).toMatchObject({ path: 'limit', location: 'query' })
  })

  test('401 without a key', async () => {
    expectErrorBody(await t.api('GET', ws(), { key: null }), 401, 'unauthorized')
  })

  test('403 for a member on an admin action', async () => {
    const { key } = await memberKey(t, 'm@example.com')
    expectErrorBody(await t.api('PATCH', ws(), { key, body: { name: 'x' } }), 403, 'forbidden')
  })

  test('404 for an unknown route and an unknown object, in the same shape', async () => {
    expectErrorBody(await t.api('GET', '/api/nothing-here'), 404, 'not_found')
    expectErrorBody(await t.api('GET', '/not-api-either', { key: null }), 404, 'not_found')
    expectErrorBody(await t.api('DELETE', `${ws()}/api-keys/key_missing`), 404, 'not_found')
  })

  test('409 on a duplicate invitation', async () => {
    await t.api('POST', `${ws()}/members`, { body: { email: 'dup@example.com' } })
    expectErrorBody(await t.api('POST', `${ws()}/members`, { body: { email: 'dup@example.com' } }), 409, 'conflict')
  })

  test('413 when Content-Length is over the limit, and when a chunked body grows over it; nothing changes', async () => {
    const big = JSON.stringify({ name: 'x'.repeat(4000) })
    expectErrorBody(await t.api('PATCH', ws(), { body: big }), 413, 'payload_too_large')
    const chunks = [new TextEncoder().encode('{"name":"'), new TextEncoder().encode('y'.repeat(3000)), new TextEncoder().encode('"}')]
    const stream = new ReadableStream({
      pull(controller) {
        const next = chunks.shift()
        if (next) controller.enqueue(next)
        else controller.close()
      },
    })
    const res = await fetch(t.url + ws(), {
      method: 'PATCH',
      body: stream,
      headers: { authorization: `Bearer ${t.adminKey}`, 'content-type': 'application/json' },
    })
    expectErrorBody({ status: res.status, headers: res.headers, body: await res.json() }, 413, 'payload_too_large')
    expect((await t.api('GET', ws())).body.workspace.name).toBe('Default')
  })

  test('415 for a body that is not JSON', async () => {
    const r = await t.api('PATCH', ws(), { body: 'name=x', headers: { 'content-type': 'application/x-www-form-urlencoded' } })
    expectErrorBody(r, 415, 'unsupported_media_type')
  })

  test('422 names every offending field path', async () => {
    const r = await t.api('POST', `${ws()}/members`, { body: { email: 42, role: 'boss' } })
    expectErrorBody(r, 422, 'validation_failed')
    const paths = r.body.error.details.fields.map((f: { path: string }) => f.path)
    expect(paths).toContain('email')
    expect(paths).toContain('role')
  })

  test('a request id sent by the client is echoed in the header and the error body', async () => {
    const r = await t.api('GET', ws(), { key: null, headers: { 'x-request-id': 'trace-123' } })
    expect(r.body.error.requestId).toBe('trace-123')
    expect(r.headers.get('x-request-id')).toBe('trace-123')
  })
})

describe('rate limit', () => {
  test('429 with Retry-After once a key spends its burst; other keys are unaffected', async () => {
    const limited = await startTestAppliance({ RATE_LIMIT_PER_SEC: 1, RATE_LIMIT_BURST: 5 })
    try {
      const path = `/api/workspaces/${limited.workspaceId}`
      const other = await limited.api('POST', `${path}/api-keys`, { body: { name: 'other' } })
      expect(other.status).toBe(200)
      let passed = 0
      let last
      for (let i = 0; i < 10; i++) {
        last = await limited.api('GET', path)
        if (last.status !== 200) break
        passed++
      }
      // Two of the burst went on start-up's list and the key creation above.
      expect(passed).toBe(3)
      expectErrorBody(last!, 429, 'rate_limited')
      expect(Number(last!.headers.get('retry-after'))).toBeGreaterThanOrEqual(1)
      expect((await limited.api('GET', path, { key: other.body.apiKey.key })).status).toBe(200)
    } finally {
      await limited.stop()
    }
  })
})
