// Polls an outbound job through the API until it satisfies `done`.
import type { TestAppliance } from './appliance.ts'

export async function waitForJob(t: TestAppliance, id: string, done: (job: any) => boolean, timeoutMs = 15_000): Promise<any> {
  const end = Date.now() + timeoutMs
  for (;;) {
    const job = (await t.api('GET', `/api/outbound/jobs/${id}`)).body.job
    if (done(job)) return job
    if (Date.now() > end) {
      const calls = t.appliance.database.sqlite.query('select to_number, status, outcome, end_reason, answered_by from calls where outbound_job_id = ?').all(id)
      throw new Error(`job ${id} did not get there within ${timeoutMs} ms: ${JSON.stringify(job)}\ncalls: ${JSON.stringify(calls)}`)
    }
    await Bun.sleep(25)
  }
}
