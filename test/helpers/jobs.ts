// Polls an outbound job through the API until it satisfies `done`.
import type { TestAppliance } from './appliance.ts'
import { type CallSetup, setupCallTarget } from './calls.ts'

export async function waitForJob(t: TestAppliance, id: string, done: (job: any) => boolean, timeoutMs = 15_000): Promise<any> {
  const end = Date.now() + timeoutMs
  for (;;) {
    const job = (await t.api('GET', `/api/outbound/jobs/${id}`)).body.job
    if (done(job)) return job
    if (Date.now() > end) {
      const calls = await t.appliance.database.db.selectFrom('calls').select(['to_number', 'status', 'outcome', 'end_reason', 'answered_by']).where('outbound_job_id', '=', id).execute()
      throw new Error(`job ${id} did not get there within ${timeoutMs} ms: ${JSON.stringify(job)}\ncalls: ${JSON.stringify(calls)}`)
    }
    await Bun.sleep(25)
  }
}

/**
 * A number whose trunk is the SIPp callees on `port`, with an outbound agent whose workflow says
 * `greeting` (filled from the contact's variables) and then `goodbye` before it hangs up.
 */
export async function campaignTarget(t: TestAppliance, port: number, o: { greeting?: string; goodbye?: string; agent?: Record<string, unknown> } = {}): Promise<CallSetup> {
  const target = await setupCallTarget(t, { trunkUri: `sip:127.0.0.1:${port}`, direction: 'outbound', agent: o.agent })
  const graph = {
    nodes: [
      { id: 'start', type: 'start', config: { text: o.greeting ?? 'Hello {{name}}.' } },
      { id: 'bye', type: 'end', config: { text: o.goodbye ?? 'Bye.' } },
    ],
    edges: [{ from: 'start', to: 'bye' }],
  }
  const put = await t.api('PUT', `/api/agents/${target.agentId}/workflow`, { body: graph })
  if (put.status !== 200) throw new Error(`workflow: ${JSON.stringify(put.body)}`)
  return target
}
