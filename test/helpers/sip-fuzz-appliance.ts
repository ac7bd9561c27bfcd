// The appliance the SIP fuzz suite aims at: in this process (so the lag probe sees its event
// loop), with UDP, TCP and TLS listeners, no limit on refusals (a fuzzer causes thousands; the
// limit would only turn answers into silence), and one number on a 127.0.0.1 trunk with no
// inbound agent, so INVITEs pass the parser, validation and the directory, then get 480
// without starting calls. Its log is read for handler failures.
import { join } from 'node:path'
import { startTestAppliance, type TestAppliance } from './appliance.ts'
import { setupCallTarget } from './calls.ts'
import { seedsFor, type Seed, type Target } from './sip-fuzz-corpus.ts'
import type { Transport } from './sip-fuzz.ts'
import { tempDir } from './tmp.ts'

export interface SipFuzzAppliance {
  t: TestAppliance
  target: Target
  ports: Record<Transport, number>
  seeds: Seed[]
  /** Log lines that show a failure inside the SIP stack (a handler or timer that threw). */
  logFailures: () => string[]
  stop(): Promise<void>
}

// pino levels: 40 warn, 50 error; debug lines only count when a handler threw
const FAILURE = /"where":"message handler"|"level":(5\d|60)|"msg":"(inbound INVITE failed|call listener threw|server transaction timer failed|client transaction timer failed)"/

export async function startSipFuzzAppliance(): Promise<SipFuzzAppliance> {
  const dir = tempDir('sip-fuzz-tls-')
  const gen = Bun.spawnSync(['openssl', 'req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=127.0.0.1',
    '-addext', 'subjectAltName=IP:127.0.0.1', '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem')])
  if (gen.exitCode !== 0) throw new Error(gen.stderr.toString())
  const failures: string[] = []
  const sink = { write: (line: string) => void (FAILURE.test(line) && failures.push(line.trim())) }
  const t = await startTestAppliance(
    { SIP_TLS_CERT_FILE: join(dir, 'cert.pem'), SIP_TLS_KEY_FILE: join(dir, 'key.pem'), SIP_REFUSALS_PER_SEC: 0, LOG_LEVEL: 'debug' },
    undefined,
    sink,
  )
  const { e164 } = await setupCallTarget(t, { trunkUri: 'sip:127.0.0.1:5999', direction: 'outbound' })
  const sip = t.appliance.sip
  const target: Target = { number: e164, host: '127.0.0.1', port: sip.udp! }
  return {
    t,
    target,
    ports: { udp: sip.udp!, tcp: sip.tcp!, tls: sip.tls! },
    seeds: seedsFor(target),
    logFailures: () => failures,
    stop: () => t.stop(),
  }
}
