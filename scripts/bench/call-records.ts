// Call records at scale, over real HTTP on 127.0.0.1 against an appliance in a child process with
// 100,000 stored calls: the export of a 200-turn call (baseline: GET of the same call), GET
// /api/calls with three filters (baseline: no filter), and the bulk NDJSON export of every call
// with the appliance process's peak RSS (baseline: the same export of a tenth of them).
//   bun run scripts/bench/call-records.ts [--calls 100000] [--requests 2000]
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { startAppliance } from '../../src/app/appliance.ts'
import { loadConfig } from '../../src/platform/config/index.ts'
import { newId } from '../../src/platform/ids.ts'
import { createLogger } from '../../src/platform/log.ts'

const arg = (name: string, def: number) => {
  const i = process.argv.indexOf(name)
  return i > 0 ? Number(process.argv[i + 1]) : def
}
const CALLS = arg('--calls', 100_000)
const REQUESTS = arg('--requests', 2000)
const T0 = Date.parse('2026-01-01T00:00:00Z')

interface Served {
  url: string
  key: string
  longId: string
  seededMs: number
}

/** The child: an appliance on a fresh DATA_DIR, seeded with CALLS calls straight into SQLite. */
async function serve(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-call-records-'))
  const config = loadConfig({}, {
    HTTP_HOST: '127.0.0.1', HTTP_PORT: 0, SIP_HOST: '127.0.0.1', SIP_PORT: 0, SIP_TLS_PORT: 0, DATA_DIR: dir, LOG_LEVEL: 'silent',
    RATE_LIMIT_PER_SEC: 0, STT_PROVIDER: 'none', LLM_PROVIDER: 'none', VAD_ENGINE: 'energy',
  })
  const appliance = await startAppliance(config, createLogger('silent'))
  const key = readFileSync(join(dir, 'admin-api-key'), 'utf8').trim()
  const workspaceId = (appliance.database.sqlite.query('SELECT id FROM workspaces').get() as { id: string }).id
  const sqlite = appliance.database.sqlite
  const outcomes = ['completed', 'completed', 'completed', 'no_answer', 'busy', 'failed']
  const sentiments = ['positive', 'neutral', 'neutral', 'negative']
  const transcript = JSON.stringify([
    { role: 'agent', text: 'Hello, thanks for calling Acme Dental. How can I help?', timestamp: 0.2 },
    { role: 'user', text: 'I would like to book a cleaning next week.', timestamp: 3.4 },
    { role: 'agent', text: 'Sure, Tuesday at ten works. See you then!', timestamp: 5.1 },
  ])
  const metrics = JSON.stringify({ totalTokens: 300, inputTokens: 250, outputTokens: 50, model: 'gpt-4o-mini', ttsProvider: 'flite', sttProvider: 'deepgram', ttsDuration: 6.2, ttsCharacters: 100, sttDuration: 4, latencyP50: 720, latencyP99: 910, turns: [] })
  const cost = JSON.stringify({ llm: 0.0001, tts: 0, stt: 0.0005, telephony: 0.004, total: 0.0046 })
  const insertCall = sqlite.prepare(
    `INSERT INTO calls (id, workspace_id, agent_id, agent_name, phone_number_id, type, from_number, to_number, status, outcome, end_reason,
       transcript, metrics, cost, created_at, started_at, answered_at, ended_at, duration_sec, outbound_job_id)
     VALUES (?, ?, ?, ?, ?, ?, '+14155550100', '+14155550123', 'ended', ?, 'caller_hangup', ?, ?, ?, ?, ?, ?, ?, 60, ?)`,
  )
  const insertAnalysis = sqlite.prepare(
    `INSERT INTO call_analyses (call_id, workspace_id, status, summary, sentiment, is_voicemail, run_after, created_at, completed_at)
     VALUES (?, ?, 'completed', 'Inbound call, completed, 60 s. Caller: I would like to book a cleaning next week.', ?, 0, ?, ?, ?)`,
  )
  const insertLabel = sqlite.prepare('INSERT INTO call_labels (call_id, workspace_id, label, created_at) VALUES (?, ?, ?, ?)')
  const started = performance.now()
  sqlite.transaction(() => {
    for (let i = 0; i < CALLS; i++) {
      const id = newId('call')
      const at = new Date(T0 + i * 60_000).toISOString()
      insertCall.run(id, workspaceId, `agent_${i % 20}`, `Agent ${i % 20}`, `num_${i % 5}`, i % 3 === 0 ? 'outbound' : 'inbound', outcomes[i % outcomes.length]!,
        transcript, metrics, cost, at, at, at, at, i % 3 === 0 ? `job_${i % 7}` : null)
      insertAnalysis.run(id, workspaceId, sentiments[i % sentiments.length]!, at, at, at)
      if (i % 10 === 0) insertLabel.run(id, workspaceId, i % 20 === 0 ? 'vip' : 'callback', at)
    }
  })()
  const seededMs = performance.now() - started
  // what the hourly housekeeping does (RetentionSweeper): fresh planner statistics
  sqlite.exec('PRAGMA analysis_limit = 1000')
  sqlite.exec('PRAGMA optimize = 0x10002')
  const longId = newId('call')
  const turns = Array.from({ length: 200 }, (_, i) => ({ role: i % 2 ? 'user' : 'agent', text: `Turn ${i}: ${'a sentence of ordinary length in a conversation '.repeat(2)}`, timestamp: i * 4.2 }))
  const now = new Date().toISOString()
  insertCall.run(longId, workspaceId, 'agent_long', 'Long talker', 'num_0', 'inbound', 'completed', JSON.stringify(turns), metrics, cost, now, now, now, now, null)
  insertAnalysis.run(longId, workspaceId, 'neutral', now, now, now)
  const served: Served = { url: appliance.url, key, longId, seededMs }
  console.log(JSON.stringify(served))
  process.on('SIGTERM', async () => {
    await appliance.stop()
    rmSync(dir, { recursive: true, force: true })
    process.exit(0)
  })
}

/** Resident set size of a process, from /proc (bytes). */
const rssOf = (pid: number): number => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) * 1024

async function measure(): Promise<void> {
  const child = Bun.spawn([process.execPath, import.meta.path, '--serve', '--calls', String(CALLS)], { stdout: 'pipe', stderr: 'inherit' })
  const reader = (child.stdout as ReadableStream<Uint8Array>).getReader()
  let text = ''
  while (!text.includes('\n')) {
    const { value, done } = await reader.read()
    if (done) throw new Error('the appliance child exited')
    text += new TextDecoder().decode(value)
  }
  const s = JSON.parse(text.split('\n')[0]!) as Served
  const headers = { authorization: `Bearer ${s.key}` }
  const get = (path: string) => fetch(s.url + path, { headers })
  try {
    console.log(`seeded ${CALLS} calls in ${(s.seededMs / 1000).toFixed(1)} s; ${REQUESTS} sequential requests per figure over HTTP on 127.0.0.1`)
    const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((xs.length * p) / 100))]!
    const latency = async (label: string, path: string) => {
      for (let i = 0; i < 100; i++) await (await get(path)).arrayBuffer()
      const ms: number[] = []
      let bytes = 0
      for (let i = 0; i < REQUESTS; i++) {
        const t = performance.now()
        const res = await get(path)
        bytes = (await res.arrayBuffer()).byteLength
        if (res.status !== 200) throw new Error(`${path}: ${res.status}`)
        ms.push(performance.now() - t)
      }
      const r = { p50: pct(ms, 50), p99: pct(ms, 99) }
      console.log(`${label.padEnd(56)} p50 ${r.p50.toFixed(2)} ms  p99 ${r.p99.toFixed(2)} ms  (${bytes} bytes)`)
      return r
    }
    const ratio = (label: string, a: { p50: number; p99: number }, b: { p50: number; p99: number }) =>
      console.log(`  ${label}: p50 x${(a.p50 / b.p50).toFixed(2)}, p99 x${(a.p99 / b.p99).toFixed(2)}`)
    const one = await latency('GET /api/calls/{id}, 200 turns [baseline]', `/api/calls/${s.longId}`)
    ratio('export / get', await latency('GET /api/calls/{id}/export, 200 turns', `/api/calls/${s.longId}/export`), one)
    const plain = await latency(`GET /api/calls?limit=50, ${CALLS} calls [baseline]`, '/api/calls?limit=50')
    ratio('three filters / none', await latency('GET /api/calls?agentId&type&outcome, limit=50', '/api/calls?limit=50&agentId=agent_6&type=outbound&outcome=completed'), plain)
    ratio('three filters matching nothing / none', await latency('same, a combination no call has (scans the agent)', '/api/calls?limit=50&agentId=agent_7&type=outbound&outcome=completed'), plain)
    ratio('agent+label+sentiment / none', await latency('GET /api/calls?agentId&label&sentiment, limit=50', '/api/calls?limit=50&agentId=agent_0&label=vip&sentiment=positive'), plain)

    const bulk = async (label: string, query: string, expected: number) => {
      const before = rssOf(child.pid)
      let peak = before
      const sampler = setInterval(() => (peak = Math.max(peak, rssOf(child.pid))), 10)
      const t = performance.now()
      const body = (await get(`/api/calls/export?format=ndjson${query}`)).body!.getReader()
      let bytes = 0
      let lines = 0
      for (;;) {
        const { value, done } = await body.read()
        if (done) break
        bytes += value.byteLength
        for (let i = 0; i < value.length; i++) if (value[i] === 10) lines++
      }
      const sec = (performance.now() - t) / 1000
      clearInterval(sampler)
      if (lines !== expected) throw new Error(`${label}: ${lines} lines, expected ${expected}`)
      const mb = (n: number) => (n / 1_048_576).toFixed(0)
      console.log(`${label.padEnd(56)} ${lines} docs in ${sec.toFixed(1)} s = ${Math.round(lines / sec)} docs/s, ${(bytes / 1_048_576 / sec).toFixed(1)} MB/s; appliance RSS ${mb(before)} -> peak ${mb(peak)} MB`)
      return peak
    }
    const tenth = Math.floor(CALLS / 10)
    const small = await bulk(`bulk NDJSON export, ${tenth} calls [baseline]`, `&createdBefore=${new Date(T0 + tenth * 60_000).toISOString()}`, tenth)
    const all = await bulk(`bulk NDJSON export, all ${CALLS + 1} calls`, '', CALLS + 1)
    const again = await bulk(`bulk NDJSON export, all ${CALLS + 1} calls, again`, '', CALLS + 1)
    console.log(`  peak RSS, all / tenth: x${(all / small).toFixed(2)} (second run of all: x${(again / small).toFixed(2)}) for x${((CALLS + 1) / tenth).toFixed(0)} the calls`)
  } finally {
    child.kill('SIGTERM')
    await child.exited
  }
}

if (process.argv.includes('--serve')) await serve()
else await measure()
