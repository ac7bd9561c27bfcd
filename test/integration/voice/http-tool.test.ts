import { afterAll, describe, expect, test } from 'bun:test'
import { httpTool, runTool } from '../../../src/realtime/voice/session/index.ts'

const seen: { method: string; url: string; body: string }[] = []
const server = Bun.serve({
  hostname: '127.0.0.1',
  port: 0,
  async fetch(req) {
    const url = new URL(req.url)
    seen.push({ method: req.method, url: url.pathname + url.search, body: await req.text() })
    if (url.pathname === '/slow') return new Promise(() => {})
    if (url.pathname === '/redirect') return Response.redirect('http://169.254.169.254/latest/meta-data', 302)
    return Response.json({ ok: true, path: url.pathname }, { status: url.pathname.includes('missing') ? 404 : 200 })
  },
})
afterAll(() => server.stop(true))
const base = `http://127.0.0.1:${server.port}`
const params = { type: 'object' as const, properties: { id: { type: 'string' as const }, note: { type: 'string' as const } }, required: ['id'] }
const call = (args: unknown, name = 'lookup') => ({ id: 'c1', name, arguments: JSON.stringify(args) })

describe('http_request tool', () => {
  test('fills the URL from the arguments, sends the rest as a query, and feeds status and body back', async () => {
    const tool = httpTool({ name: 'lookup', description: 'd', parameters: params, url: `${base}/orders/{{id}}`, method: 'GET' }, { allowPrivate: true })
    const out = await runTool([tool], call({ id: 'A 1', note: 'x' }))
    expect(JSON.parse(out)).toEqual({ status: 200, body: '{"ok":true,"path":"/orders/A%201"}' })
    expect(seen.at(-1)).toMatchObject({ method: 'GET', url: '/orders/A%201?note=x' })
  })

  test('POSTs the arguments as JSON and passes error statuses through to the model', async () => {
    const tool = httpTool({ name: 'lookup', description: 'd', parameters: params, url: `${base}/missing`, method: 'POST', headers: { 'x-api-key': 'k' } }, { allowPrivate: true })
    expect(JSON.parse(await runTool([tool], call({ id: '7' })))).toMatchObject({ status: 404 })
    expect(seen.at(-1)).toEqual({ method: 'POST', url: '/missing', body: '{"id":"7"}' })
  })

  test('refuses loopback and private targets unless the operator allows them', async () => {
    const before = seen.length
    for (const url of [`${base}/x`, 'http://localhost:9/x', 'http://[::1]:9/x', 'http://169.254.169.254/latest']) {
      const tool = httpTool({ name: 'lookup', description: 'd', parameters: params, url, method: 'GET' }, { allowPrivate: false })
      expect(JSON.parse(await runTool([tool], call({ id: '1' }))).error).toMatch(/^refused: .*a (loopback|metadata) address/)
    }
    expect(seen.length).toBe(before)
  })

  test('refuses at call time every spelling the save-time check refuses (IPv4 inside IPv6, NAT64, 6to4, 192.0.0.0/24)', async () => {
    const before = seen.length
    const port = server.port
    for (const host of ['[::ffff:7f00:1]', '[::127.0.0.1]', '[::ffff:0:127.0.0.1]', '[64:ff9b::7f00:1]', '[2002:7f00:1::]', '[::ffff:a9fe:a9fe]', '192.0.0.170']) {
      const tool = httpTool({ name: 'lookup', description: 'd', parameters: params, url: `http://${host}:${port}/x`, method: 'GET' }, { allowPrivate: false })
      expect(JSON.parse(await runTool([tool], call({ id: '1' }))).error).toMatch(/^refused: /)
    }
    expect(seen.length).toBe(before)
  })

  test('does not follow redirects (they could lead to a private address after the check)', async () => {
    const tool = httpTool({ name: 'lookup', description: 'd', parameters: params, url: `${base}/redirect`, method: 'GET' }, { allowPrivate: true })
    expect(JSON.parse(await runTool([tool], call({ id: '1' })))).toMatchObject({ status: 302 })
  })

  test('refuses other schemes, invalid arguments, and gives up after the timeout', async () => {
    const file = httpTool({ name: 'lookup', description: 'd', parameters: params, url: 'file:///etc/passwd', method: 'GET' }, { allowPrivate: true })
    expect(JSON.parse(await runTool([file], call({ id: '1' }))).error).toMatch(/only http and https/)
    const ok = httpTool({ name: 'lookup', description: 'd', parameters: params, url: `${base}/x`, method: 'GET' }, { allowPrivate: true })
    expect(JSON.parse(await runTool([ok], call({ note: 'no id' })))).toEqual({ error: 'invalid arguments', problems: ['arguments.id is required'] })
    const slow = httpTool({ name: 'lookup', description: 'd', parameters: params, url: `${base}/slow`, method: 'GET', timeoutMs: 50 }, { allowPrivate: true })
    expect(JSON.parse(await runTool([slow], call({ id: '1' })))).toEqual({ error: 'tool timed out after 50 ms' })
  })
})
