import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type Appliance, startAppliance } from '../../src/app/appliance.ts'
import { loadConfig } from '../../src/platform/config/index.ts'
import { createLogger } from '../../src/platform/log.ts'
import { apiClient, type Api } from '../helpers/appliance.ts'

const lines: string[] = []
const waiters: { match: (r: Record<string, unknown>) => boolean; resolve: (r: Record<string, unknown>) => void }[] = []

// The destination is a byte stream: one write may carry several lines (access lines are batched).
function onChunk(chunk: string) {
  for (const line of chunk.split('\n')) {
    if (line === '') continue
    lines.push(line)
    const record = JSON.parse(line) as Record<string, unknown>
    for (const w of waiters.splice(0)) {
      if (w.match(record)) w.resolve(record)
      else waiters.push(w)
    }
  }
}

/** The access log line is written after the response is sent; wait for it by event. */
function nextRecord(match: (r: Record<string, unknown>) => boolean): Promise<Record<string, unknown>> {
  const seen = lines.map((l) => JSON.parse(l) as Record<string, unknown>).find(match)
  if (seen) return Promise.resolve(seen)
  return new Promise((resolve) => waiters.push({ match, resolve }))
}
let appliance: Appliance
let api: Api
let dir: string
let adminKey: string

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'appliance-log-'))
  const config = loadConfig({}, { HTTP_HOST: '127.0.0.1', HTTP_PORT: 0, SIP_HOST: '127.0.0.1', SIP_PORT: 0, SIP_TLS_PORT: 0, DATA_DIR: dir, LOG_LEVEL: 'info' })
  appliance = await startAppliance(config, createLogger('info', { write: onChunk }))
  adminKey = readFileSync(join(dir, 'admin-api-key'), 'utf8').trim()
  api = apiClient(appliance.url, adminKey)
})
afterAll(async () => {
  await appliance.stop()
  rmSync(dir, { recursive: true, force: true })
})

describe('structured logs', () => {
  test('every line is JSON; each write and each refused request is logged once at info with its requestId, method, path, status and duration', async () => {
    const ws = (await api('GET', '/api/workspaces')).body.workspaces[0].id
    const r = await api('POST', `/api/workspaces/${ws}/api-keys`, { body: { name: 'log-probe' }, headers: { 'x-request-id': 'log-probe-1' } })
    expect(r.status).toBe(200)
    const line = await nextRecord((x) => x.requestId === 'log-probe-1')
    expect(line).toMatchObject({ level: 30, msg: 'request', method: 'POST', path: `/api/workspaces/${ws}/api-keys`, status: 200 })
    expect(typeof line?.ms).toBe('number')
    expect((await api('GET', '/api/calls/call_none', { headers: { 'x-request-id': 'log-probe-404' } })).status).toBe(404)
    expect(await nextRecord((x) => x.requestId === 'log-probe-404')).toMatchObject({ level: 30, msg: 'request', method: 'GET', status: 404 })
    expect(lines.filter((l) => l.includes('"log-probe-1"') || l.includes('"log-probe-404"'))).toHaveLength(2)
  })

  test("the console's polling (a GET answered 200) leaves no line at info", async () => {
    for (let i = 0; i < 5; i++) expect((await api('GET', '/api/workspaces', { headers: { 'x-request-id': `log-poll-${i}` } })).status).toBe(200)
    // a write after the reads: once its line is out, the reads' lines would have been out before it
    expect((await api('POST', '/api/workspaces/ws_none/api-keys', { body: { name: 'x' }, headers: { 'x-request-id': 'log-poll-end' } })).status).toBeGreaterThanOrEqual(400)
    await nextRecord((x) => x.requestId === 'log-poll-end')
    expect(lines.filter((l) => l.includes('"log-poll-'))).toHaveLength(1)
  })

  test('the bootstrap admin key is never logged: the first start names its 0600 file, and no other secret is logged either', async () => {
    expect(lines.filter((l) => l.includes(adminKey.slice(8))).length).toBe(0)
    const first = lines.map((l) => JSON.parse(l)).find((r) => String(r.msg).startsWith('first start'))
    expect(first).toMatchObject({ level: 40, adminApiKeyFile: expect.stringMatching(/admin-api-key$/), adminApiKeyPrefix: adminKey.slice(0, 8) })
    const ws = (await api('GET', '/api/workspaces')).body.workspaces[0].id
    const created = await api('POST', `/api/workspaces/${ws}/api-keys`, { body: { name: 'secret-probe' } })
    const secret = created.body.apiKey.key as string
    await apiClient(appliance.url, secret)('GET', `/api/workspaces/${ws}`)
    await apiClient(appliance.url, `${secret}x`)('GET', `/api/workspaces/${ws}`)
    await api('POST', '/api/workspaces', { body: { name: 'Another' } })
    await nextRecord((x) => x.msg === 'request' && x.method === 'POST' && x.path === '/api/workspaces')
    const all = lines.join('\n')
    expect(all).not.toContain(secret)
    expect(all).not.toContain(secret.slice(10))
    expect(all.toLowerCase()).not.toContain('bearer ')
  })
})
