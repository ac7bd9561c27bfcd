// /health and a SIP OPTIONS round trip over UDP, each probed every 10 ms, while the largest
// allowed campaign upload (100,000 contacts, OUTBOUND_JOB_MAX_BODY_BYTES of JSON, then of CSV) is
// parsed, validated and stored, against a baseline of the same probes in the same run with no
// upload. The appliance runs in this process: a stall of its event loop delays both probes.
//   bun run scripts/bench/campaign-upload.ts [--baseline-sec 5] [--interval-ms 10]
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pino from 'pino'
import { startAppliance } from '../../src/app/appliance.ts'
import { loadConfig } from '../../src/platform/config/index.ts'
import { createLogger } from '../../src/platform/log.ts'
import { probeWhile } from './stall-probe.ts'
import { benchArg } from './wrk.ts'

const baselineSec = benchArg('baseline-sec', 5)
const intervalMs = benchArg('interval-ms', 10)
const dir = mkdtempSync(join(tmpdir(), 'bench-campaign-upload-'))
const config = loadConfig({}, { HTTP_HOST: '127.0.0.1', HTTP_PORT: 0, SIP_HOST: '127.0.0.1', SIP_PORT: 0, SIP_TLS_PORT: 0, DATA_DIR: dir, LOG_LEVEL: 'warn', RATE_LIMIT_PER_SEC: 1e9, RATE_LIMIT_BURST: 1e9 })
const appliance = await startAppliance(config, createLogger('warn', pino.destination({ dest: '/dev/null', sync: true })))
const base = appliance.url
const headers = { authorization: `Bearer ${readFileSync(join(dir, 'admin-api-key'), 'utf8').trim()}`, 'content-type': 'application/json' }
const api = async (path: string, body: unknown) => (await (await fetch(base + path, { method: 'POST', headers, body: JSON.stringify(body) })).json()) as any
const sipPort = appliance.sip.udp!

const percentile = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))] ?? NaN

const probe = (until: Promise<unknown>) => probeWhile(until, { base, sipPort, intervalMs })

const number = (i: number) => `+44207${String(i).padStart(7, '0')}`
function padded(prefix: string, sep: string, suffix: string, bytes: number, row: (i: number, note: string) => string): string {
  const bare = Array.from({ length: 100_000 }, (_, i) => row(i, '')).join(sep)
  const note = 'x'.repeat(Math.max(0, Math.floor((bytes - prefix.length - suffix.length - bare.length) / 100_000)))
  return prefix + Array.from({ length: 100_000 }, (_, i) => row(i, note)).join(sep) + suffix
}

const line = (name: string, xs: number[]) => `${name.padEnd(22)} n=${String(xs.length).padStart(5)}  p50 ${percentile(xs, 50).toFixed(1).padStart(7)} ms  p99 ${percentile(xs, 99).toFixed(1).padStart(7)} ms  max ${Math.max(...xs).toFixed(1).padStart(7)} ms`

try {
  await api(`/api/workspaces/${(await (await fetch(`${base}/api/workspaces`, { headers })).json() as any).workspaces[0].id}/payment-methods`, { provider: 'manual', reference: 'bench' })
  const agentId = (await api('/api/agents', { name: 'Bench', agentType: 'outbound' })).agent.id
  const numberId = (await api('/api/phone-numbers', { e164: '+14155550170', sipTerminationUri: 'sip:127.0.0.1:9' })).phoneNumber.id
  const cap = config.OUTBOUND_JOB_MAX_BODY_BYTES
  const settings = { scheduling: { startAt: '2099-01-01T09:00:00' } }
  const q = new URLSearchParams({ agentId, phoneNumberId: numberId, settings: JSON.stringify(settings) })
  const uploads = [
    { name: 'JSON', path: '/api/outbound/jobs', type: 'application/json', text: padded(JSON.stringify({ agentId, phoneNumberId: numberId, settings }).slice(0, -1) + ',"contacts":[', ',', ']}', cap - 1024, (i, note) => `{"to":"${number(i)}","dynamicVariables":{"name":"Customer ${i}","date":"Monday","note":"${note}"}}`) },
    { name: 'CSV', path: `/api/outbound/jobs?${q}`, type: 'text/csv', text: padded('to,name,date,note\n', '', '', cap - 1024, (i, note) => `${number(i)},Customer ${i},Monday,${note}\n`) },
  ]
  Bun.gc(true)
  const baseline = await probe(Bun.sleep(baselineSec * 1000))
  console.log(`campaign upload: 100,000 contacts, OUTBOUND_JOB_MAX_BODY_BYTES ${cap}; probes every ${intervalMs} ms`)
  console.log(line('baseline /health', baseline.health))
  console.log(line('baseline SIP OPTIONS', baseline.sip))
  for (const u of uploads) {
    Bun.gc(true)
    const started = performance.now()
    const res = fetch(base + u.path, { method: 'POST', headers: { ...headers, 'content-type': u.type }, body: u.text }).then(async (r) => [r.status, await r.text()] as const)
    const loaded = await probe(res)
    const [status, body] = await res
    if (status !== 200) throw new Error(`upload answered ${status}: ${body.slice(0, 300)}`)
    console.log(`${u.name} upload of ${(u.text.length / 1_048_576).toFixed(1)} MiB: ${status} in ${((performance.now() - started) / 1000).toFixed(2)} s`)
    console.log(line(`  ${u.name}: /health`, loaded.health), ` p99 ratio ${(percentile(loaded.health, 99) / percentile(baseline.health, 99)).toFixed(1)}x`)
    console.log(line(`  ${u.name}: SIP OPTIONS`, loaded.sip), ` p99 ratio ${(percentile(loaded.sip, 99) / percentile(baseline.sip, 99)).toFixed(1)}x`)
  }
} finally {
  await appliance.stop()
  rmSync(dir, { recursive: true, force: true })
}
