import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { startTestAppliance, type TestAppliance } from '../helpers/appliance.ts'

let t: TestAppliance
beforeAll(async () => {
  t = await startTestAppliance()
})
afterAll(() => t.stop())

describe('health and readiness', () => {
  test('/health answers without a key', async () => {
    const r = await t.api('GET', '/health', { key: null })
    expect(r.status).toBe(200)
    expect(r.body).toEqual({ status: 'ok' })
  })

  test('/ready reports the database reachable, this node, its database kind and its capacity', async () => {
    const r = await t.api('GET', '/ready', { key: null })
    expect(r.status).toBe(200)
    expect(r.body).toEqual({
      status: 'ready', nodeId: t.appliance.config.NODE_ID, database: process.env.TEST_DATABASE_URL ? 'postgres' : 'sqlite',
      // no CALLS_MAX: no fixed ceiling (null); a calm node has all its headroom
      capacity: { capacity: null, callsUp: 0, headroom: null },
    })
    expect(r.body.nodeId).not.toBe('')
  })

  test('the running appliance has one frozen configuration, settled before anything started', () => {
    expect(Object.isFrozen(t.appliance.config)).toBe(true)
    expect(t.appliance.config.NODE_ID).not.toBe('')
    expect(t.appliance.config.PUBLIC_HOST).toBe('127.0.0.1')
  })

  test('/openapi/json documents the bearer scheme and every /api route', async () => {
    const r = await t.api('GET', '/openapi/json', { key: null })
    expect(r.status).toBe(200)
    expect(r.body.components.securitySchemes.bearer).toMatchObject({ type: 'http', scheme: 'bearer' })
    const documented = new Set<string>()
    for (const [path, ops] of Object.entries<Record<string, unknown>>(r.body.paths)) {
      for (const method of Object.keys(ops)) documented.add(`${method.toUpperCase()} ${path}`)
    }
    for (const route of t.appliance.app.routes) {
      if (!route.path.startsWith('/api')) continue
      const path = route.path.replace(/:([a-z_]+)/g, '{$1}')
      expect(documented.has(`${route.method} ${path}`)).toBe(true)
    }
  })

  test('/ redirects to the console (302), for GET and HEAD, without a key', async () => {
    for (const method of ['GET', 'HEAD']) {
      const res = await fetch(`${t.url}/`, { method, redirect: 'manual' })
      expect([method, res.status, res.headers.get('location')]).toEqual([method, 302, '/console'])
    }
    const followed = await fetch(`${t.url}/`)
    expect(followed.url).toBe(`${t.url}/console`)
    expect(followed.headers.get('content-type')).toBe('text/html; charset=utf-8')
  })

  test('/openapi serves a browsable page', async () => {
    const res = await fetch(`${t.url}/openapi`)
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toContain('text/html')
  })
})
