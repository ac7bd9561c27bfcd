import type { Db } from '../../platform/db/index.ts'
import { newId } from '../../platform/ids.ts'
import { Poller } from '../../platform/jobs/index.ts'
import type { Logger } from '../../platform/log.ts'
import type { UrlPolicy } from '../../platform/net/index.ts'
import type { SecretBox } from '../../platform/secrets/index.ts'
import { claimDue, disableAgentWebhook, eventBody, recordAttempt, storePayload } from './outbox.ts'
import { postWebhook, type PostResult } from './post.ts'
import { nextAttemptDelay, verdictOf } from './schedule.ts'
import { signingSecrets } from './secrets.ts'
import { signedHeaders } from './signer.ts'
import type { DeliveryRow } from './webhooks.table.ts'

export interface WebhookWorkerOptions {
  db: Db
  box: SecretBox
  log: Logger
  policy: UrlPolicy
  /** Delays between attempts, ms (see schedule.ts). */
  schedule: number[]
  concurrency: number
  pollMs: number
  /** Longer than a send can take (10 s), so a live sender never loses its lease. */
  leaseMs?: number
  /** Renders the data of an event enqueued without it (call.completed: the export document). */
  render(row: DeliveryRow): Promise<unknown>
}

/**
 * Sends due deliveries from the outbox. Each is claimed with a lease (owner + expiry) before it
 * is sent, and its attempt recorded after; a process killed in between leaves a lease that
 * expires, and the delivery is sent again with the same webhook-id (at-least-once).
 */
export class WebhookWorker {
  readonly owner = newId('wrk')
  private readonly poller: Poller
  private readonly inflight = new Set<Promise<void>>()

  constructor(private readonly o: WebhookWorkerOptions) {
    this.poller = new Poller('webhooks', o.pollMs, () => this.tick(), o.log)
  }

  start(): void {
    this.poller.start()
  }

  wake(): void {
    this.poller.wake()
  }

  async stop(): Promise<void> {
    await this.poller.stop()
    await Promise.all(this.inflight)
  }

  private async tick(): Promise<void> {
    const rows = await claimDue(this.o.db, this.owner, new Date(), this.o.leaseMs ?? 60_000, this.o.concurrency - this.inflight.size)
    for (const row of rows) {
      const p: Promise<void> = this.deliver(row)
        .catch((err) => this.o.log.error({ err, deliveryId: row.id }, 'webhook delivery failed unexpectedly; its lease will expire and it is retried'))
        .finally(() => {
          this.inflight.delete(p)
          this.poller.wake()
        })
      this.inflight.add(p)
    }
  }

  private async deliver(row: DeliveryRow): Promise<void> {
    const { db, box } = this.o
    const at = new Date()
    const started = performance.now()
    const sent = await this.send(row, at)
    const latencyMs = Math.round((performance.now() - started) * 10) / 10
    const verdict = verdictOf(sent.statusCode)
    let next: Parameters<typeof recordAttempt>[3]['next']
    if (verdict === 'delivered') next = { status: 'delivered' }
    else if (verdict === 'gone') next = { status: 'gone' }
    else {
      const delay = nextAttemptDelay(row.attempts + 1, this.o.schedule, Math.random())
      next = delay === null ? { status: 'failed' } : { status: 'pending', at: new Date(Date.now() + delay) }
    }
    const detail = verdict === 'gone' ? "receiver answered 410 Gone: the agent's webhookUrl was turned off" : sent.detail
    const kept = await recordAttempt(db, row, this.owner, { statusCode: sent.statusCode, latencyMs, error: sent.error, errorDetail: detail, attemptedAt: at, next })
    if (!kept) return
    // one line per attempt; the detail (which members do not see) goes to the log, never the body,
    // the secret or the URL's path and query (a receiver may take a token there): its host only
    const line = { event: 'webhook_attempt', deliveryId: row.id, eventType: row.event_type, host: hostOf(row.url), status: sent.statusCode, attempt: row.attempts + 1, latencyMs }
    if (verdict === 'delivered') this.o.log.info(line, 'webhook delivered')
    else this.o.log[next.status === 'failed' ? 'warn' : 'info']({ ...line, error: sent.error ?? 'http_status', detail, next: next.status }, next.status === 'failed' ? 'webhook delivery failed; no attempt is left' : 'webhook attempt failed')
    if (verdict === 'gone' && row.agent_id) {
      await disableAgentWebhook(db, row.agent_id, row.url)
      this.o.log.warn({ deliveryId: row.id, agentId: row.agent_id, host: hostOf(row.url) }, "webhook receiver answered 410 Gone; the agent's webhookUrl was cleared")
    }
  }

  /** Renders the body on the first attempt (stored, so every attempt sends the same bytes), signs and POSTs it. */
  private async send(row: DeliveryRow, at: Date): Promise<PostResult> {
    let body = row.payload
    try {
      if (body === null) {
        body = eventBody(row.event_type, row.created_at, await this.o.render(row))
        await storePayload(this.o.db, row.id, this.owner, body)
      }
      const headers = signedHeaders(await signingSecrets(this.o.db, this.o.box, row.workspace_id, at), row.id, at, body)
      return await postWebhook(row.url, headers, body, this.o.policy)
    } catch (err) {
      // counted as a failed attempt, so a delivery that cannot be prepared follows the retry schedule too
      return { statusCode: null, error: 'internal_error', detail: `could not prepare the event: ${(err as Error).message.slice(0, 300)}` }
    }
  }
}

/** The host (and port) of an endpoint, for the log. */
function hostOf(url: string): string {
  try {
    return new URL(url).host
  } catch {
    return 'invalid-url'
  }
}
