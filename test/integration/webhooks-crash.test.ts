// Durability of the outbox: the appliance is killed with SIGKILL while a post-call webhook is
// pending (its receiver was down), and the restarted appliance delivers it with the same id.
import { afterAll, expect, test } from 'bun:test'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Webhook } from 'standardwebhooks'
import { ledger } from '../../src/features/calls/records/index.ts'
import { openDatabase } from '../../src/platform/db/index.ts'
import { apiClient } from '../helpers/appliance.ts'
import { seedCall } from '../helpers/call-records.ts'
import { until } from '../helpers/until.ts'
import { startReceiver } from '../helpers/webhook-receiver.ts'

const root = join(import.meta.dir, '..', '..')
const dataDir = mkdtempSync(join(tmpdir(), 'webhook-crash-'))
const children: ReturnType<typeof Bun.spawn>[] = []
afterAll(() => {
  for (const c of children) c.kill('SIGKILL')
  rmSync(dataDir, { recursive: true, force: true })
})

/** Starts `npm start`'s entry point as a real process; resolves with its API URL once it listens. */
async function startMain(): Promise<{ proc: ReturnType<typeof Bun.spawn>; url: string }> {
  const proc = Bun.spawn([process.execPath, 'src/main.ts'], {
    cwd: root,
    env: {
      ...process.env, DATA_DIR: dataDir, HTTP_PORT: '0', HTTP_HOST: '127.0.0.1', SIP_HOST: '127.0.0.1', SIP_PORT: '0', SIP_TLS_PORT: '0',
      LOG_LEVEL: 'info', STT_PROVIDER: 'none', LLM_PROVIDER: 'none', VAD_ENGINE: 'energy',
      WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_RETRY_SCHEDULE: '1500ms,500ms', BACKGROUND_POLL_MS: '50',
    },
    stdout: 'pipe',
    stderr: 'pipe',
  })
  children.push(proc)
  const reader = (proc.stdout as ReadableStream<Uint8Array>).getReader()
  let text = ''
  for (const end = Date.now() + 20_000; Date.now() < end; ) {
    const { value, done } = await reader.read()
    if (done) break
    text += new TextDecoder().decode(value)
    const line = text.split('\n').find((l) => l.includes('"appliance started"'))
    if (line) {
      // keep draining the log so the child never blocks on a full pipe
      void (async () => {
        while (!(await reader.read().catch(() => ({ done: true }))).done);
      })()
      return { proc, url: JSON.parse(line).url }
    }
  }
  throw new Error(`appliance did not start:\n${text}\n${await new Response(proc.stderr as ReadableStream).text()}`)
}

test('a webhook pending when the appliance is killed with SIGKILL is delivered after the restart, with the same webhook-id', async () => {
  const down = startReceiver()
  const port = down.port
  const hookUrl = down.url
  await down.stop() // nothing listens there now: attempts fail and the delivery stays pending

  const first = await startMain()
  const api = apiClient(first.url, readFileSync(join(dataDir, 'admin-api-key'), 'utf8').trim())
  const workspaceId = (await api('GET', '/api/workspaces')).body.workspaces[0].id
  const agentId = (await api('POST', '/api/agents', { body: { name: 'Crashy', webhookUrl: hookUrl } })).body.agent.id
  const secret = (await api('GET', `/api/workspaces/${workspaceId}/webhook-secret`)).body.secret

  // the call ends through the real finalisation hook, on the same database file
  const side = openDatabase(join(dataDir, 'appliance.db'))
  const callId = await seedCall(side.db, { workspaceId, agentId, status: 'in_progress' })
  await ledger.finaliseCall(side.db, callId, { status: 'ended', outcome: 'completed', ended_at: new Date().toISOString(), duration_sec: 3 })
  await side.close()

  let delivery: any
  for (const end = Date.now() + 10_000; !(delivery?.attemptCount >= 1); await Bun.sleep(25)) {
    if (Date.now() > end) throw new Error('no failed attempt before the kill')
    delivery = (await api('GET', `/api/webhook-deliveries?callId=${callId}`)).body.deliveries[0]
  }
  expect(delivery.status).toBe('pending')
  expect(delivery.attempts[0].statusCode).toBeNull()

  first.proc.kill('SIGKILL')
  expect(await first.proc.exited).not.toBe(0)

  const rx = startReceiver(port)
  try {
    const second = await startMain()
    await until(() => rx.received.length >= 1, 15_000, 'the delivery after the restart')
    const got = rx.received[0]!
    expect(got.headers['webhook-id']).toBe(delivery.id)
    const event = new Webhook(secret).verify(got.body, got.headers) as any
    expect(event.data.call.id).toBe(callId)
    const api2 = apiClient(second.url, readFileSync(join(dataDir, 'admin-api-key'), 'utf8').trim())
    let after: any
    for (const end = Date.now() + 5000; after?.status !== 'delivered'; await Bun.sleep(25)) {
      if (Date.now() > end) throw new Error(`not marked delivered: ${JSON.stringify(after)}`)
      after = (await api2('GET', `/api/webhook-deliveries?callId=${callId}`)).body.deliveries[0]
    }
    expect(after.id).toBe(delivery.id)
    expect(after.attempts.at(-1).statusCode).toBe(200)
    second.proc.kill('SIGTERM')
    expect(await second.proc.exited).toBe(0)
  } finally {
    await rx.stop()
  }
}, 60_000)
