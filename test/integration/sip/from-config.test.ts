// The user agent built from appliance configuration: listeners from the SIP_* keys, and the
// per-source refusal limit that makes a scanner's requests go unanswered.
import { afterEach, expect, test } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { loadConfig } from '../../../src/platform/config/index.ts'
import { header, userAgentFromConfig, type UserAgent } from '../../../src/realtime/telephony/sip/index.ts'
import { InMemoryNumberDirectory } from '../../helpers/number-directory.ts'
import { SipPeer } from '../../helpers/sip-peer.ts'

let ua: UserAgent | undefined
let dir: string | undefined
afterEach(async () => {
  await ua?.stop()
  if (dir) rmSync(dir, { recursive: true, force: true })
})

const local = { SIP_HOST: '127.0.0.1', SIP_PORT: 0, PUBLIC_HOST: '127.0.0.1' }

test('SIP_TLS_CERT_FILE and SIP_TLS_KEY_FILE turn on the TLS listener beside UDP and TCP', async () => {
  dir = mkdtempSync(join(tmpdir(), 'sip-cfg-'))
  const gen = Bun.spawnSync(['openssl', 'req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=localhost',
    '-keyout', join(dir, 'k.pem'), '-out', join(dir, 'c.pem')])
  expect(gen.exitCode).toBe(0)
  const config = loadConfig({}, { ...local, SIP_TLS_PORT: 0, SIP_TLS_CERT_FILE: join(dir, 'c.pem'), SIP_TLS_KEY_FILE: join(dir, 'k.pem') })
  ua = userAgentFromConfig(config, new InMemoryNumberDirectory([]))
  const ports = await ua.start()
  expect(ports.udp).toBeGreaterThan(0)
  expect(ports.tcp).toBeGreaterThan(0)
  expect(ports.tls).toBeGreaterThan(0)
})

test('a source that keeps getting refused is ignored once its SIP_REFUSAL_BURST is spent', async () => {
  const config = loadConfig({}, { ...local, SIP_REFUSALS_PER_SEC: 1, SIP_REFUSAL_BURST: 3 })
  ua = userAgentFromConfig(config, new InMemoryNumberDirectory([]))
  await ua.start()
  const peer = await SipPeer.udp(ua.ports.udp!)
  const bye = (n: number) =>
    `BYE sip:x@127.0.0.1 SIP/2.0\r\nVia: SIP/2.0/UDP 127.0.0.1:${peer.port};branch=z9hG4bKscan${n}\r\nFrom: <sip:s@127.0.0.1>;tag=a\r\n` +
    `To: <sip:x@127.0.0.1>;tag=b\r\nCall-ID: scan${n}\r\nCSeq: 1 BYE\r\nContent-Length: 0\r\n\r\n`
  for (let n = 1; n <= 3; n++) {
    peer.send(bye(n))
    const res = await peer.waitFor((m) => m.kind === 'response' && header(m, 'call-id') === `scan${n}`)
    expect(res.kind === 'response' && res.status).toBe(481)
  }
  peer.send(bye(4))
  const options = `OPTIONS sip:x@127.0.0.1 SIP/2.0\r\nVia: SIP/2.0/UDP 127.0.0.1:${peer.port};branch=z9hG4bKopt\r\nFrom: <sip:s@127.0.0.1>;tag=a\r\nTo: <sip:x@127.0.0.1>\r\nCall-ID: opt\r\nCSeq: 1 OPTIONS\r\nContent-Length: 0\r\n\r\n`
  // another source host is still served, and its answer proves the fourth BYE was read before it
  const other = await SipPeer.udp(ua.ports.udp!, '127.0.0.2')
  other.send(options.replaceAll(String(peer.port), String(other.port)))
  await other.waitFor((m) => m.kind === 'response')
  expect(peer.received.filter((m) => header(m, 'call-id') === 'scan4')).toEqual([])
  peer.close()
  other.close()
})
