// `voice-agent health`, the container's HEALTHCHECK (debian slim has no curl): exit 0 when the
// configured appliance's /health answers 200, 1 when it answers otherwise or nothing listens.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { join } from 'node:path'
import { healthUrl } from '../../src/app/cli/health.ts'
import { startTestAppliance, type TestAppliance } from '../helpers/appliance.ts'

const MAIN = join(import.meta.dir, '../../src/main.ts')

// asynchronous: the appliance answering the child runs in this process
async function cli(args: string[], env: Record<string, string> = {}) {
  const p = Bun.spawn([process.execPath, MAIN, ...args], { env: { PATH: process.env.PATH ?? '', ...env }, stdout: 'pipe', stderr: 'pipe' })
  const [out, err, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited])
  return { code, out, err }
}

let t: TestAppliance
beforeAll(async () => {
  t = await startTestAppliance()
})
afterAll(async () => {
  await t?.stop()
})

test('health exits 0 when the appliance on HTTP_HOST:HTTP_PORT answers /health with 200', async () => {
  const port = new URL(t.url).port
  const r = await cli(['health'], { HTTP_HOST: '0.0.0.0', HTTP_PORT: port, DATA_DIR: t.dataDir })
  expect(r.code, r.err).toBe(0)
  expect(r.out).toBe(`ok: http://127.0.0.1:${port}/health answered 200\n`)
})

test('health exits 1 naming the URL when /health is not 200, or nothing listens', async () => {
  const sick = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: () => new Response('no', { status: 503 }) })
  const port = sick.port
  try {
    const r = await cli(['health', '--url', `http://127.0.0.1:${port}/health`])
    expect(r.code).toBe(1)
    expect(r.err).toBe(`unhealthy: http://127.0.0.1:${port}/health answered 503\n`)
  } finally {
    await sick.stop(true)
  }
  const closed = await cli(['health'], { HTTP_HOST: '127.0.0.1', HTTP_PORT: String(port) })
  expect(closed.code).toBe(1)
  expect(closed.err).toStartWith(`unhealthy: http://127.0.0.1:${port}/health: `)
  expect(closed.err).not.toContain('    at ')
})

test('health with a bad --url is a usage error (exit 2)', async () => {
  const r = await cli(['health', '--url', 'ftp://x'])
  expect(r.code).toBe(2)
  expect(r.err).toContain('usage: voice-agent health')
})

test('a wildcard HTTP_HOST is reached on loopback; an IPv6 address is bracketed', () => {
  expect(healthUrl({ HTTP_HOST: '0.0.0.0', HTTP_PORT: 3000 })).toBe('http://127.0.0.1:3000/health')
  expect(healthUrl({ HTTP_HOST: '::', HTTP_PORT: 3000 })).toBe('http://[::1]:3000/health')
  expect(healthUrl({ HTTP_HOST: '127.0.0.2', HTTP_PORT: 8080 })).toBe('http://127.0.0.2:8080/health')
  expect(healthUrl({ HTTP_HOST: 'fd00::5', HTTP_PORT: 8080 })).toBe('http://[fd00::5]:8080/health')
})
