// Benchmark of outbound jobs, each figure beside a baseline measured in the same run:
//  1. POST /api/outbound/jobs with 10,000 contacts (p50, p99) and 100,000 (time, the appliance's
//     peak RSS), against inserting the same contact rows with one prepared statement (the floor);
//  2. dispatcher work per dial (claim + attempt + finish, three transactions) against one bare
//     INSERT of a call row, on the same SQLite file;
//  3. from a freed slot to the next INVITE (a 486 ends a call; SIPp logs its ACK, then the next
//     INVITE), against our own SIP reaction time in the same log (486 sent -> ACK received).
//   bun run scripts/bench/campaigns.ts [--runs 7] [--dials 300]
import { Database } from 'bun:sqlite'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { claimNext, finishAttempt, type Claim } from '../../src/features/campaigns/claims.ts'
import { noEvents } from '../../src/features/campaigns/index.ts'
import { apiClient, startTestAppliance } from '../../test/helpers/appliance.ts'
import { readMessages, startCallees } from '../../test/helpers/campaign-callees.ts'
import { setupCallTarget } from '../../test/helpers/calls.ts'
import { waitForJob } from '../../test/helpers/jobs.ts'
import { freePort } from '../../test/helpers/sipp.ts'

const arg = (name: string, def: number) => {
  const i = process.argv.indexOf(`--${name}`)
  return i > 0 ? Number(process.argv[i + 1]) : def
}
const runs = arg('runs', 7)
const dials = arg('dials', 300)
const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))]!
const f = (n: number) => n.toFixed(n < 10 ? 2 : 0)
const contacts = (n: number) => Array.from({ length: n }, (_, i) => ({ to: `+1415${String(2_000_000 + i).padStart(7, '0')}`, dynamicVariables: { name: `Person ${i}`, date: 'Monday' } }))

async function creation() {
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-jobs-'))
  const port = await freePort()
  const proc = Bun.spawn([process.execPath, 'run', join(import.meta.dir, '..', '..', 'src', 'main.ts')], {
    env: { ...process.env, DATA_DIR: dataDir, HTTP_HOST: '127.0.0.1', HTTP_PORT: String(port), SIP_PORT: String(await freePort()), SIP_TLS_PORT: '0', SIP_HOST: '127.0.0.1', LOG_LEVEL: 'error', VAD_ENGINE: 'energy', STT_PROVIDER: 'none', LLM_PROVIDER: 'none', RATE_LIMIT_PER_SEC: '0' },
    stdout: 'ignore', stderr: 'inherit',
  })
  const url = `http://127.0.0.1:${port}`
  for (let i = 0; i < 400 && !(await fetch(`${url}/ready`).then((r) => r.ok, () => false)); i++) await Bun.sleep(50) // polling a process we started
  const api = apiClient(url, readFileSync(join(dataDir, 'admin-api-key'), 'utf8').trim())
  const ws = (await api('GET', '/api/workspaces')).body.workspaces[0].id
  await api('POST', `/api/workspaces/${ws}/payment-methods`, { body: { provider: 'manual', reference: 'bench' } })
  const agent = (await api('POST', '/api/agents', { body: { name: 'Bench', agentType: 'outbound', promptPublished: 'Remind {{name}} of {{date}}.' } })).body.agent.id
  const number = (await api('POST', '/api/phone-numbers', { body: { e164: '+14155559001', provider: 'sip', sipTerminationUri: 'sip:127.0.0.1:9', sipOutboundTransport: 'udp' } })).body.phoneNumber.id
  const settings = { scheduling: { startAt: '2099-01-01T00:00:00Z' } }
  const post = async (n: number) => {
    const body = JSON.stringify({ agentId: agent, phoneNumberId: number, contacts: contacts(n), settings })
    const t0 = performance.now()
    const r = await api('POST', '/api/outbound/jobs', { body })
    if (r.status !== 200) throw new Error(JSON.stringify(r.body).slice(0, 500))
    return { ms: performance.now() - t0, bytes: body.length }
  }
  await post(1000) // warm-up
  const times: number[] = []
  for (let i = 0; i < runs; i++) times.push((await post(10_000)).ms)
  const rssBefore = hwmKb(proc.pid)
  // while the big job is created, how long does a /health request wait (the event loop's longest hold)?
  let uploading = true
  const probes: number[] = []
  const probe = (async () => {
    while (uploading) {
      const t0 = performance.now()
      await fetch(`${url}/health`)
      probes.push(performance.now() - t0)
      await Bun.sleep(5)
    }
  })()
  const big = await post(100_000)
  uploading = false
  await probe
  const rssPeak = hwmKb(proc.pid)
  proc.kill('SIGTERM')
  await proc.exited

  // baseline: the same rows through one prepared INSERT in one transaction, on a fresh file
  const db = new Database(join(dataDir, 'floor.db'))
  db.exec('PRAGMA journal_mode = WAL')
  db.exec('create table c (id text primary key, job_id text, position integer, to_number text, variables text, status text, next_attempt_ms integer, updated_at text)')
  db.exec('create index c_due on c (job_id, status, next_attempt_ms, position)')
  const floor: number[] = []
  for (let r = 0; r < runs; r++) {
    const rows = contacts(10_000)
    const t0 = performance.now()
    const ins = db.prepare('insert into c values (?, ?, ?, ?, ?, ?, ?, ?)')
    db.transaction(() => rows.forEach((c, i) => ins.run(`j${r}_${i}`, `j${r}`, i, c.to, JSON.stringify(c.dynamicVariables), 'pending', 0, '')))()
    floor.push(performance.now() - t0)
  }
  db.close()
  rmSync(dataDir, { recursive: true, force: true })
  console.log(`create job, 10,000 contacts (${runs} runs): p50 ${f(pct(times, 50))} ms, p99 ${f(pct(times, 99))} ms | floor (prepared INSERT of the rows) p50 ${f(pct(floor, 50))} ms | ratio ${(pct(times, 50) / pct(floor, 50)).toFixed(1)}x`)
  console.log(`create job, 100,000 contacts (${(big.bytes / 1048576).toFixed(1)} MB JSON): ${f(big.ms)} ms; appliance peak RSS ${Math.round(rssPeak / 1024)} MB (before it: ${Math.round(rssBefore / 1024)} MB); GET /health meanwhile p50 ${f(pct(probes, 50))} ms, max ${f(Math.max(...probes))} ms (${probes.length} probes)`)
}

function hwmKb(pid: number): number {
  return Number(/VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0)
}

async function perDial() {
  const t = await startTestAppliance({ RATE_LIMIT_PER_SEC: 0 })
  t.appliance.campaigns.stop()
  const x = await setupCallTarget(t, { trunkUri: 'sip:127.0.0.1:9', direction: 'outbound' })
  const r = await t.api('POST', '/api/outbound/jobs', { body: { agentId: x.agentId, phoneNumberId: x.numberId, contacts: contacts(dials), settings: { maxConcurrent: 10, callingWindow: { start: '00:00', end: '24:00' } } } })
  const db = t.appliance.database.db
  const ctx = { owner: 'bench', leaseMs: 60_000, agentName: 'Bench', fromNumber: x.e164 }
  const claimMs: number[] = []
  const finishMs: number[] = []
  for (let i = 0; i < dials; i++) {
    const now = Date.now() + 1000
    let t0 = performance.now()
    const claim = (await claimNext(db, r.body.job.id, { ...ctx, nowMs: now })) as Claim
    claimMs.push(performance.now() - t0)
    await db.updateTable('calls').set({ status: 'ended', outcome: 'busy' }).where('id', '=', claim.callId).execute()
    t0 = performance.now()
    await finishAttempt(db, noEvents, claim.contact.id, claim.callId, now)
    finishMs.push(performance.now() - t0)
  }
  const insertMs: number[] = []
  for (let i = 0; i < dials; i++) {
    const t0 = performance.now()
    await db.insertInto('calls').values({ id: `call_bench_${i}`, workspace_id: t.workspaceId, type: 'outbound', from_number: x.e164, to_number: '+14155550100', status: 'queued', created_at: new Date().toISOString() }).execute()
    insertMs.push(performance.now() - t0)
  }
  await t.stop()
  const total = claimMs.map((c, i) => c + finishMs[i]!)
  console.log(`dispatcher work per dial (${dials}): claim p50 ${f(pct(claimMs, 50))} ms, finish p50 ${f(pct(finishMs, 50))} ms, together p50 ${f(pct(total, 50))} ms p99 ${f(pct(total, 99))} ms | baseline one call-row INSERT p50 ${f(pct(insertMs, 50))} ms | ratio ${(pct(total, 50) / pct(insertMs, 50)).toFixed(1)}x`)
}

async function slotToInvite() {
  const n = Math.min(dials, 100) // callee kind 2 (busy): +141555502NN
  const t = await startTestAppliance({ OUTBOUND_MAX_CALLS: 1 })
  const callees = await startCallees(n, 120)
  const x = await setupCallTarget(t, { trunkUri: `sip:127.0.0.1:${callees.port}`, direction: 'outbound' })
  const uniq = Array.from({ length: n }, (_, i) => ({ to: `+141555502${String(i).padStart(2, '0')}` }))
  const r = await t.api('POST', '/api/outbound/jobs', { body: { agentId: x.agentId, phoneNumberId: x.numberId, contacts: uniq, settings: { maxConcurrent: 1, callingWindow: { start: '00:00', end: '24:00' } } } })
  await waitForJob(t, r.body.job.id, (j) => j.status === 'completed', 120_000)
  callees.proc.kill()
  await callees.proc.exited
  await t.stop()
  const msgs = readMessages(callees.messageFile)
  const gaps: number[] = []
  const react: number[] = []
  let lastAck: number | undefined
  let last486: number | undefined
  for (const m of msgs) {
    if (!m.received && m.firstLine.startsWith('SIP/2.0 486')) last486 = m.timeMs
    if (m.received && m.firstLine.startsWith('ACK ')) {
      if (last486 !== undefined) react.push(m.timeMs - last486)
      lastAck = m.timeMs
    }
    if (m.received && m.firstLine.startsWith('INVITE ') && lastAck !== undefined) {
      gaps.push(m.timeMs - lastAck)
      lastAck = undefined
    }
  }
  console.log(`freed slot -> next INVITE (${gaps.length} calls, maxConcurrent 1, SIPp clock): p50 ${f(pct(gaps, 50))} ms, p99 ${f(pct(gaps, 99))} ms | baseline our 486 -> ACK p50 ${f(pct(react, 50))} ms p99 ${f(pct(react, 99))} ms | ratio p99 ${(pct(gaps, 99) / Math.max(0.001, pct(react, 99))).toFixed(1)}x`)
}

await creation()
await perDial()
await slotToInvite()
process.exit(0)
