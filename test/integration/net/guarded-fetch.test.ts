// guardedFetch against real servers on loopback: the host is resolved once, the connection goes to
// the address that was checked, and Host and TLS verification still use the host name.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import https from 'node:https'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { guardedFetch, OutboundRefusedError, parseNetworks, type Resolver } from '../../../src/platform/net/index.ts'

const seen: { server: string; host: string | null; path: string }[] = []
const serve = (name: string, hostname: string, port = 0) =>
  Bun.serve({
    hostname,
    port,
    fetch(req) {
      const url = new URL(req.url)
      seen.push({ server: name, host: req.headers.get('host'), path: url.pathname })
      if (url.pathname === '/big') return new Response('x'.repeat(200_000))
      if (url.pathname === '/redirect') return new Response(null, { status: 302, headers: { location: 'http://169.254.169.254/' } })
      return new Response(`hello from ${name}`)
    },
  })

const checked = serve('checked', '127.0.0.1')
// the address a rebinding DNS answer would point to: the same port on another loopback address
const rebound = serve('rebound', '127.0.0.2', checked.port)
let dir: string
let cert: string
let tlsServer: https.Server
let tlsPort: number

/** A DNS server that answers `first` once, then `later` (a rebinding attacker). */
function rebindingResolver(first: string[], later: string[]) {
  const lookups: string[] = []
  const resolve: Resolver = async (host) => {
    lookups.push(host)
    return lookups.length === 1 ? first : later
  }
  return { resolve, lookups }
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'guarded-fetch-'))
  const gen = Bun.spawnSync([
    'openssl', 'req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=hooks.example.test',
    '-addext', 'subjectAltName=DNS:hooks.example.test', '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem'),
  ])
  if (gen.exitCode !== 0) throw new Error(gen.stderr.toString())
  cert = readFileSync(join(dir, 'cert.pem'), 'utf8')
  tlsServer = https.createServer({ cert, key: readFileSync(join(dir, 'key.pem'), 'utf8') }, (req, res) => {
    seen.push({ server: 'tls', host: req.headers.host ?? null, path: req.url ?? '' })
    res.end('secure hello')
  })
  await new Promise<void>((res) => tlsServer.listen(0, '127.0.0.1', res))
  tlsPort = (tlsServer.address() as { port: number }).port
})

afterAll(() => {
  checked.stop(true)
  rebound.stop(true)
  tlsServer?.close()
  rmSync(dir, { recursive: true, force: true })
})

const loopbackAllowed = { allowHttp: true, allowPrivate: true }
const strict = { allowHttp: true, allowPrivate: false }

describe('guardedFetch', () => {
  test('resolves the host once and connects to the checked address although DNS changes its answer', async () => {
    const dns = rebindingResolver(['127.0.0.1'], ['127.0.0.2'])
    const before = seen.length
    const res = await guardedFetch(`http://rebind.example.test:${checked.port}/hook`, { method: 'POST', body: '{}' }, { policy: loopbackAllowed, resolve: dns.resolve })
    expect(res).toMatchObject({ status: 200, body: 'hello from checked', address: '127.0.0.1', truncated: false })
    expect(dns.lookups).toEqual(['rebind.example.test'])
    expect(seen.slice(before)).toEqual([{ server: 'checked', host: `rebind.example.test:${checked.port}`, path: '/hook' }])
  })

  test('a name whose first answer is public and whose later answer is loopback never reaches loopback', async () => {
    // 203.0.113.9 (documentation range) is let through by the allow-list; nothing listens there, so the request fails
    const dns = rebindingResolver(['203.0.113.9'], ['127.0.0.1'])
    const before = seen.length
    const policy = { ...strict, allowNetworks: parseNetworks('203.0.113.0/24') }
    await expect(guardedFetch(`http://rebind.example.test:${checked.port}/steal`, {}, { policy, resolve: dns.resolve, timeoutMs: 1000 })).rejects.not.toBeInstanceOf(OutboundRefusedError)
    expect(dns.lookups).toEqual(['rebind.example.test'])
    expect(seen.slice(before)).toEqual([])
  })

  test('refuses before connecting when any address of the name is not public', async () => {
    const before = seen.length
    const dns = rebindingResolver(['93.184.216.34', '127.0.0.1'], [])
    const refused = guardedFetch(`http://mixed.example.test:${checked.port}/x`, {}, { policy: strict, resolve: dns.resolve })
    await expect(refused).rejects.toBeInstanceOf(OutboundRefusedError)
    await expect(refused).rejects.toThrow('resolves to 127.0.0.1, a loopback address')
    for (const literal of [`http://[::ffff:7f00:1]:${checked.port}/x`, `http://[::ffff:0:127.0.0.1]:${checked.port}/x`, `http://127.0.0.1:0/x`]) {
      await expect(guardedFetch(literal, {}, { policy: strict })).rejects.toBeInstanceOf(OutboundRefusedError)
    }
    expect(seen.slice(before)).toEqual([])
  })

  test('TLS verifies the certificate for the host name while connecting to the pinned address', async () => {
    const dns = rebindingResolver(['127.0.0.1'], ['127.0.0.2'])
    const res = await guardedFetch(`https://hooks.example.test:${tlsPort}/t`, {}, { policy: loopbackAllowed, resolve: dns.resolve, ca: cert })
    expect(res).toMatchObject({ status: 200, body: 'secure hello', address: '127.0.0.1' })
    expect(seen.at(-1)).toEqual({ server: 'tls', host: `hooks.example.test:${tlsPort}`, path: '/t' })
    const wrongName = rebindingResolver(['127.0.0.1'], [])
    await expect(guardedFetch(`https://other.example.test:${tlsPort}/t`, {}, { policy: loopbackAllowed, resolve: wrongName.resolve, ca: cert })).rejects.toThrow(/altnames|certificate/i)
  })

  test('cuts the response at maxResponseBytes and never follows a redirect', async () => {
    const big = await guardedFetch(`http://127.0.0.1:${checked.port}/big`, {}, { policy: loopbackAllowed, maxResponseBytes: 1000 })
    expect(big.body.length).toBe(1000)
    expect(big.truncated).toBe(true)
    const before = seen.length
    const redirect = await guardedFetch(`http://127.0.0.1:${checked.port}/redirect`, {}, { policy: loopbackAllowed })
    expect(redirect).toMatchObject({ status: 302, headers: { location: 'http://169.254.169.254/' } })
    expect(seen.length).toBe(before + 1)
  })
})
