// Crash drill for the campaign dispatcher: runs an appliance process against SIPp callees,
// SIGKILLs it at random moments while a job runs, restarts it, and at the end checks that
// SIPp's own log and the database agree: nobody was dialled more than their attempts allow,
// and every contact is accounted for.
//   bun run scripts/campaign-crash.ts [contacts=200] [kills=10]
import { Database } from 'bun:sqlite'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { apiClient } from '../test/helpers/appliance.ts'
import { invitesByNumber, readMessages, startCallees } from '../test/helpers/campaign-callees.ts'
import { freePort } from '../test/helpers/sipp.ts'

export interface DrillOptions {
  contacts: number
  kills: number
  maxConcurrent: number
  /** Random time the appliance runs before each kill. */
  minRunMs: number
  maxRunMs: number
  log?: (line: string) => void
}

export interface DrillReport {
  kills: number
  contacts: number
  invites: number
  attempts: number
  overDialled: string[]
  unaccounted: string[]
  countersMatch: boolean
  jobStatus: string
}

const RETRIES = 2

async function startNode(env: Record<string, string>): Promise<{ proc: Bun.Subprocess; url: string }> {
  const proc = Bun.spawn([process.execPath, 'run', join(import.meta.dir, '..', 'src', 'main.ts')], { env: { ...process.env, ...env }, stdout: 'ignore', stderr: 'pipe' })
  const url = `http://127.0.0.1:${env.HTTP_PORT}`
  const end = Date.now() + 20_000
  for (;;) {
    if (proc.exitCode !== null) throw new Error(`appliance exited with ${proc.exitCode}: ${await new Response(proc.stderr as ReadableStream).text()}`)
    const ok = await fetch(`${url}/ready`).then((r) => r.ok, () => false)
    if (ok) return { proc, url }
    if (Date.now() > end) throw new Error('appliance did not get ready')
    await Bun.sleep(50)
  }
}

export async function runCrashDrill(o: DrillOptions): Promise<DrillReport> {
  const log = o.log ?? (() => {})
  const dataDir = mkdtempSync(join(tmpdir(), 'crash-drill-'))
  const kinds = Array.from({ length: o.contacts }, (_, i) => (i % 4) + 1)
  const numbers = kinds.map((k, i) => `+14155550${k}${String(Math.floor(i / 4)).padStart(2, '0')}`)
  // SIPp stops when told; it serves any number of calls meanwhile
  const callees = await startCallees(o.contacts * (1 + RETRIES) * 2, 600)
  const env = {
    DATA_DIR: dataDir, HTTP_HOST: '127.0.0.1', HTTP_PORT: String(await freePort()), SIP_HOST: '127.0.0.1', SIP_PORT: String(await freePort()),
    SIP_TLS_PORT: '0', PUBLIC_HOST: '127.0.0.1', VAD_ENGINE: 'energy', STT_PROVIDER: 'none', LLM_PROVIDER: 'none', LOG_LEVEL: 'error',
    CALL_DRAIN_MS: '0', RECORD_CALLS: 'false', OUTBOUND_MAX_CALLS: String(o.maxConcurrent), NODE_ID: 'drill-node',
  }
  let node = await startNode(env)
  const api = apiClient(node.url, readFileSync(join(dataDir, 'admin-api-key'), 'utf8').trim())
  const ws = (await api('GET', '/api/workspaces')).body.workspaces[0].id
  await api('POST', `/api/workspaces/${ws}/payment-methods`, { body: { provider: 'manual', reference: 'drill' } })
  const agent = (await api('POST', '/api/agents', { body: { name: 'Drill', agentType: 'outbound' } })).body.agent.id
  await api('PUT', `/api/agents/${agent}/workflow`, {
    body: { nodes: [{ id: 'start', type: 'start', config: { text: 'Hello {{name}}.' } }, { id: 'bye', type: 'end', config: { text: 'Bye.' } }], edges: [{ from: 'start', to: 'bye' }] },
  })
  const number = (await api('POST', '/api/phone-numbers', { body: { e164: '+14155559000', provider: 'sip', sipTerminationUri: `sip:127.0.0.1:${callees.port}`, sipOutboundTransport: 'udp' } })).body.phoneNumber.id
  const created = await api('POST', '/api/outbound/jobs', {
    body: {
      agentId: agent, phoneNumberId: number, name: 'crash drill',
      contacts: numbers.map((to, i) => ({ to, dynamicVariables: { name: `P${i}` } })),
      settings: { maxConcurrent: o.maxConcurrent, retryAttempts: RETRIES, retryDelayMs: 0, ringTimeoutMs: 1000, callingWindow: { start: '00:00', end: '24:00' }, answeringMachineDetection: { enabled: true } },
    },
  })
  if (created.status !== 200) throw new Error(`job: ${JSON.stringify(created.body)}`)
  const jobId = created.body.job.id as string
  let kills = 0
  const jobNow = async (url: string) => (await fetch(`${url}/api/outbound/jobs/${jobId}`, { headers: { authorization: `Bearer ${readFileSync(join(dataDir, 'admin-api-key'), 'utf8').trim()}` } }).then((r) => r.json() as Promise<{ job: any }>)).job
  while (kills < o.kills) {
    await Bun.sleep(o.minRunMs + Math.random() * (o.maxRunMs - o.minRunMs))
    const job = await jobNow(node.url)
    if (job.status === 'completed') break
    node.proc.kill('SIGKILL')
    await node.proc.exited
    kills++
    log(`kill ${kills}: pending ${job.pendingContacts}, active ${job.activeContacts}, done ${job.completedContacts + job.failedContacts}`)
    node = await startNode(env)
  }
  const end = Date.now() + 300_000
  let job = await jobNow(node.url)
  while (job.status !== 'completed' && Date.now() < end) {
    await Bun.sleep(200)
    job = await jobNow(node.url)
  }
  node.proc.kill('SIGTERM')
  await node.proc.exited
  callees.proc.kill()
  await callees.proc.exited

  const invites = invitesByNumber(readMessages(callees.messageFile))
  const db = new Database(join(dataDir, 'appliance.db'), { readonly: true })
  const contacts = db.query('select to_number, status, attempts from outbound_contacts where job_id = ?').all(jobId) as { to_number: string; status: string; attempts: number }[]
  const counters = db.query('select pending + active + answered + no_answer + busy + voicemail + failed + suppressed + cancelled as total, pending, active from outbound_jobs where id = ?').get(jobId) as { total: number; pending: number; active: number }
  db.close()
  const byNumber = new Map(contacts.map((c) => [c.to_number, c]))
  const overDialled = numbers.filter((n) => (invites.get(n) ?? 0) > Math.min(byNumber.get(n)?.attempts ?? 0, 1 + RETRIES))
  const unaccounted = numbers.filter((n) => !['completed', 'failed'].includes(byNumber.get(n)?.status ?? ''))
  rmSync(dataDir, { recursive: true, force: true })
  return {
    kills,
    contacts: contacts.length,
    invites: [...invites.values()].reduce((a, b) => a + b, 0),
    attempts: contacts.reduce((a, c) => a + c.attempts, 0),
    overDialled,
    unaccounted,
    countersMatch: counters.total === o.contacts && counters.pending === 0 && counters.active === 0,
    jobStatus: job.status,
  }
}

if (import.meta.main) {
  const contacts = Number(process.argv[2] ?? 200)
  const kills = Number(process.argv[3] ?? 10)
  const started = performance.now()
  const report = await runCrashDrill({ contacts, kills, maxConcurrent: 10, minRunMs: 500, maxRunMs: 4000, log: (l) => console.log(l) })
  console.log(JSON.stringify(report, null, 2))
  console.log(`crash drill: ${report.kills} SIGKILLs, ${report.contacts} contacts, ${report.invites} INVITEs seen by SIPp for ${report.attempts} recorded attempts, ` +
    `${report.overDialled.length} over-dialled, ${report.unaccounted.length} unaccounted, job ${report.jobStatus}, ${((performance.now() - started) / 1000).toFixed(1)} s`)
  process.exit(report.overDialled.length || report.unaccounted.length || !report.countersMatch || report.jobStatus !== 'completed' ? 1 : 0)
}
