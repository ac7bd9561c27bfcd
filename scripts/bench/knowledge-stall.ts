// /health and a SIP OPTIONS round trip over UDP, each probed every 10 ms, while a knowledge base
// takes the largest documents: a 2 MiB FAQ CSV of 130,000 rows uploaded, replaced with one row
// inserted at the top (every passage moves), re-indexed and deleted; then the refused ones (349,508
// identical rows; 2 MiB of "# h\n"). Against a baseline of the same probes in the same run with no
// upload. The appliance runs in this process: a stall of its event loop delays both probes.
//   bun run scripts/bench/knowledge-stall.ts [--baseline-sec 5] [--interval-ms 10] [--rows 130000]
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pino from 'pino'
import { startAppliance } from '../../src/app/appliance.ts'
import { loadConfig } from '../../src/platform/config/index.ts'
import { createLogger } from '../../src/platform/log.ts'
import { percentile } from './stats.ts'
import { probeWhile } from './stall-probe.ts'
import { benchArg } from './wrk.ts'

const baselineSec = benchArg('baseline-sec', 5)
const intervalMs = benchArg('interval-ms', 10)
const rows = benchArg('rows', 130_000)
const dir = mkdtempSync(join(tmpdir(), 'bench-knowledge-stall-'))
const config = loadConfig({}, { HTTP_HOST: '127.0.0.1', HTTP_PORT: 0, SIP_HOST: '127.0.0.1', SIP_PORT: 0, SIP_TLS_PORT: 0, DATA_DIR: dir, LOG_LEVEL: 'warn', RATE_LIMIT_PER_SEC: 1e9, RATE_LIMIT_BURST: 1e9 })
const appliance = await startAppliance(config, createLogger('warn', pino.destination({ dest: '/dev/null', sync: true })))
const base = appliance.url
const headers = { authorization: `Bearer ${readFileSync(join(dir, 'admin-api-key'), 'utf8').trim()}`, 'content-type': 'application/json' }
const call = (method: string, path: string, body?: unknown) =>
  fetch(base + path, { method, headers, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) }).then(async (r) => [r.status, await r.text()] as const)
const sipPort = appliance.sip.udp!

const probe = (until: Promise<unknown>) => probeWhile(until, { base, sipPort, intervalMs })

const line = (name: string, xs: number[], against?: number[]) =>
  `${name.padEnd(30)} n=${String(xs.length).padStart(5)}  p50 ${percentile(xs, 50).toFixed(1).padStart(7)} ms  p99 ${percentile(xs, 99).toFixed(1).padStart(7)} ms  max ${Math.max(...xs).toFixed(1).padStart(7)} ms` +
  (against ? `  p99 ratio ${(percentile(xs, 99) / percentile(against, 99)).toFixed(1)}x, max ratio ${(Math.max(...xs) / Math.max(...against)).toFixed(1)}x` : '')

// q100000,a100000: 16 bytes a row, 130,000 rows in 2 MiB
const faq = (n: number, top = '') => `question,answer\n${top}${Array.from({ length: n }, (_, i) => `q${100_000 + i},a${100_000 + i}\n`).join('')}`

try {
  const [, created] = await call('POST', '/api/knowledge-bases', { name: 'bench' })
  const kb = JSON.parse(created).knowledgeBase.id as string
  const docs = `/api/knowledge-bases/${kb}/documents`
  const text = faq(rows)
  Bun.gc(true)
  const baseline = await probe(Bun.sleep(baselineSec * 1000))
  console.log(`knowledge stall: FAQ CSV of ${rows} rows, ${(Buffer.byteLength(text) / 1_048_576).toFixed(2)} MiB; probes every ${intervalMs} ms`)
  console.log(line('baseline /health', baseline.health))
  console.log(line('baseline SIP OPTIONS', baseline.sip))
  let docId = ''
  const steps: { name: string; run: () => Promise<readonly [number, string]>; expect: number }[] = [
    { name: 'upload', run: () => call('POST', docs, { name: 'faq.csv', content: text }), expect: 200 },
    { name: 'replace (row at top)', run: () => call('POST', docs, { name: 'faq.csv', content: faq(rows, 'q0,a new first row\n').replace(`q${100_000 + rows - 1},a${100_000 + rows - 1}\n`, '') }), expect: 200 },
    { name: 're-index', run: () => call('POST', `/api/knowledge-bases/${kb}/reindex`), expect: 200 },
    { name: 'delete', run: () => call('DELETE', `${docs}/${docId}`), expect: 200 },
    { name: '349,508 identical rows', run: () => call('POST', docs, { name: 'same.csv', content: `question,answer\n${'qq,aa\n'.repeat(349_508)}` }), expect: 422 },
    { name: '2 MiB of "# h\\n"', run: () => call('POST', docs, { name: 'h.md', content: '# h\n'.repeat(524_288) }), expect: 422 },
  ]
  for (const step of steps) {
    Bun.gc(true)
    const started = performance.now()
    const res = step.run()
    const loaded = await probe(res)
    const [status, body] = await res
    if (status !== step.expect) throw new Error(`${step.name} answered ${status}: ${body.slice(0, 300)}`)
    if (step.name === 'upload') docId = JSON.parse(body).document.id
    console.log(`${step.name}: ${status} in ${((performance.now() - started) / 1000).toFixed(2)} s  ${body.slice(0, 160)}`)
    console.log(line(`  ${step.name}: /health`, loaded.health, baseline.health))
    console.log(line(`  ${step.name}: SIP OPTIONS`, loaded.sip, baseline.sip))
  }
} finally {
  await appliance.stop()
  rmSync(dir, { recursive: true, force: true })
}
