// `voice-agent test-agent ID`: runs the agent's test cases on the appliance of this configuration
// (POST /api/agents/{id}/tests/run), waits for the run, prints a line per case and exits 0 when
// every case passed, 1 when one failed (or the run was interrupted), for CI.
import type { Config } from '../../platform/config/index.ts'
import { healthUrl } from './health.ts'

export interface TestAgentOptions {
  agentId: string
  key: string
  /** Base URL of the API; default: this configuration's HTTP_HOST and HTTP_PORT. */
  url?: string
  version?: 'draft' | 'published'
  timeoutMs: number
  pollMs?: number
}

export class TestAgentError extends Error {}

type Out = { out(line: string): void; err(line: string): void }

export const apiBase = (cfg: Pick<Config, 'HTTP_HOST' | 'HTTP_PORT'>) => healthUrl(cfg).replace(/\/health$/, '')

export async function testAgent(o: TestAgentOptions, io: Out): Promise<number> {
  const base = (o.url ?? '').replace(/\/$/, '')
  const call = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: { authorization: `Bearer ${o.key}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    })
    const json = (await res.json().catch(() => ({}))) as { run?: Run; error?: { message?: string } }
    if (res.status !== 200) throw new TestAgentError(`${method} ${path} answered ${res.status}: ${json.error?.message ?? 'no error message'}`)
    return json.run!
  }
  const agent = encodeURIComponent(o.agentId)
  let run = await call('POST', `/api/agents/${agent}/tests/run`, o.version ? { version: o.version } : {})
  io.err(`run ${run.id}: ${run.total} case(s) of agent ${o.agentId} (${run.version})`)
  const end = Date.now() + o.timeoutMs
  while (run.status === 'running') {
    if (Date.now() > end) throw new TestAgentError(`run ${run.id} did not finish within ${Math.round(o.timeoutMs / 1000)} s`)
    await new Promise((r) => setTimeout(r, o.pollMs ?? 1000))
    run = await call('GET', `/api/agents/${agent}/tests/runs/${encodeURIComponent(run.id)}`)
  }
  for (const r of run.results) {
    const why = r.error ?? r.verdicts.filter((v) => !v.passed).map((v) => `expectations[${v.index}] ${v.type}: ${v.reason}`).join('; ')
    io.out(`${r.status === 'passed' ? 'pass' : r.status}\t${r.name}${why ? `\t${why}` : ''}${r.callId ? `\t(call ${r.callId})` : ''}`)
  }
  io.out(`# ${run.status}: ${run.passed} of ${run.total} passed`)
  return run.status === 'passed' ? 0 : 1
}

interface Run {
  id: string
  status: string
  version: string
  total: number
  passed: number
  results: { name: string; status: string; callId: string | null; error: string | null; verdicts: { index: number; type: string; passed: boolean; reason?: string }[] }[]
}
