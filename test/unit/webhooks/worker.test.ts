// The sender on its own, against a real SQLite file and a local receiver.
import { afterAll, expect, test } from 'bun:test'
import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { migrateToLatest, openDatabase } from '../../../src/platform/db/index.ts'
import { createLogger } from '../../../src/platform/log.ts'
import { SecretBox } from '../../../src/platform/secrets/index.ts'
import { enqueueWebhookEvent, WebhookWorker } from '../../../src/features/webhooks/index.ts'
import { until } from '../../helpers/until.ts'
import { startReceiver } from '../../helpers/webhook-receiver.ts'

const dir = mkdtempSync(join(tmpdir(), 'webhook-worker-'))
const rx = startReceiver()
afterAll(async () => {
  await rx.stop()
  rmSync(dir, { recursive: true, force: true })
})

test('an event that cannot be rendered is a failed attempt on the retry schedule, not a silent loop; once it renders it is sent', async () => {
  const h = openDatabase(join(dir, 'a.db'))
  await migrateToLatest(h.db)
  h.sqlite.exec("INSERT INTO workspaces (id, name, created_at, updated_at) VALUES ('ws', 'w', 'x', 'x')")
  let broken = true
  const worker = new WebhookWorker({
    db: h.db,
    box: new SecretBox(randomBytes(32)),
    log: createLogger('silent'),
    policy: { allowHttp: true, allowPrivate: true },
    schedule: [30, 30],
    concurrency: 2,
    pollMs: 10,
    render: async () => {
      if (broken) throw new Error('the record is not readable')
      return { hello: 'world' }
    },
  })
  const id = await enqueueWebhookEvent(h.db, { workspaceId: 'ws', url: rx.url, type: 'test.rendered' })
  const row = () =>
    h.sqlite.query('SELECT status, attempts, last_error, last_error_detail FROM webhook_deliveries WHERE id = ?').get(id) as {
      status: string
      attempts: number
      last_error: string | null
      last_error_detail: string | null
    }
  worker.start()
  try {
    await until(() => row().attempts === 1, 3000, 'the failed attempt')
    expect(row()).toEqual({ status: 'pending', attempts: 1, last_error: 'internal_error', last_error_detail: 'could not prepare the event: the record is not readable' })
    broken = false
    await until(() => row().status === 'delivered', 3000, 'the delivery')
    expect(rx.received.length).toBe(1)
    expect(JSON.parse(rx.received[0]!.body)).toMatchObject({ type: 'test.rendered', data: { hello: 'world' } })
    expect(rx.received[0]!.headers['webhook-id']).toBe(id)
  } finally {
    await worker.stop()
    await h.close()
  }
})
