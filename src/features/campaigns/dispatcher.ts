// Places the calls of running jobs. Every step is a claim in the database (claims.ts), so the
// dispatcher keeps no state another node would need: in memory are only the calls this process
// dialled (to renew their leases) and a timer for the next due moment. A freed slot is filled
// the moment its call ends (onEnded), not by polling.
import { snapshotAgent, type AgentSnapshot } from '../agents/index.ts'
import { type AnswerGate, CallRefused, type Dialer, ledger } from '../calls/index.ts'
import { type Db, yieldTurn } from '../../platform/db/index.ts'
import { nowIso } from '../../platform/ids.ts'
import { LeaseKeeper } from '../../platform/jobs/index.ts'
import type { Logger } from '../../platform/log.ts'
import { getNumberRoute, type NumberRoute } from '../numbers/index.ts'
import type { SecretBox } from '../../platform/secrets/index.ts'
import type { JobSettings } from './campaigns.model.ts'
import * as repo from './campaigns.repository.ts'
import type { OutboundJobRow } from './campaigns.table.ts'
import { claimNext, closeIfDone, finishAttempt, releaseClaim, settingsOf, type Claim } from './claims.ts'
import type { CampaignEvents } from './events.ts'
import { logJobChange, logJobClosed } from './job-log.ts'

export interface DispatcherDeps {
  db: Db
  box: SecretBox
  dialer: Dialer
  events: CampaignEvents
  log: Logger
  /** This node's name on its leases (NODE_ID). */
  owner: string
  /** OUTBOUND_MAX_CALLS: live campaign calls of this node across all jobs. */
  maxCalls: number
  leaseMs?: number
  /** The answering-machine hook of one attempt, when the job asks for detection. */
  answerGate?: (attempt: { callId: string; settings: JobSettings; variables: Record<string, string> }) => AnswerGate | undefined
  /** The clock of schedules, windows and leases (epoch ms); Date.now by default. */
  now?: () => number
  /**
   * With nothing due, look again after this long (several nodes: a job created on another node
   * whose notification was missed). Undefined: sleep until poked.
   */
  idleRecheckMs?: number
}

const LEASE_MS = 60_000
/** While something is due but every slot is taken, a call's end wakes us; this is only a safety net. */
const FULL_RECHECK_MS = 1000
const MAX_SLEEP_MS = 60_000

export class Dispatcher {
  /** callId -> contactId of the calls this process dialled and that have not ended. */
  private readonly live = new Map<string, string>()
  private readonly settling = new Set<Promise<unknown>>()
  private pumping = false
  private again = false
  private stopped = true
  private timer?: ReturnType<typeof setTimeout>
  private readonly keeper: LeaseKeeper
  private readonly leaseMs: number
  private readonly now: () => number

  constructor(private readonly d: DispatcherDeps) {
    this.leaseMs = d.leaseMs ?? LEASE_MS
    this.now = d.now ?? Date.now
    this.keeper = new LeaseKeeper(this.leaseMs, () => this.keepLeases())
  }

  get liveCalls(): number {
    return this.live.size
  }

  async start(): Promise<void> {
    this.stopped = false
    await this.reconcile(this.d.owner)
    this.keeper.start()
    this.poke()
  }

  /** Stops dialling; calls already placed go on and are still recorded (await settled()). */
  stop(): void {
    this.stopped = true
    clearTimeout(this.timer)
    this.keeper.stop()
  }

  /** Resolves once every ended call's attempt has been recorded. */
  async settled(): Promise<void> {
    while (this.settling.size) await Promise.allSettled([...this.settling])
  }

  /** Something changed (a job created or resumed, a call ended): look for work now. */
  poke(): void {
    if (this.stopped) return
    if (this.pumping) {
      this.again = true
      return
    }
    this.pumping = true
    void this.pump()
  }

  private async pump(): Promise<void> {
    try {
      do {
        this.again = false
        await this.pass()
      } while (this.again && !this.stopped)
      await this.arm()
    } catch (err) {
      this.d.log.error({ err }, 'campaign dispatcher pass failed')
      clearTimeout(this.timer)
      if (!this.stopped) this.timer = setTimeout(() => this.poke(), FULL_RECHECK_MS)
    } finally {
      this.pumping = false
    }
  }

  private async pass(): Promise<void> {
    for (const job of await repo.runnableJobs(this.d.db, this.now())) {
      if (this.stopped) return
      if (job.status === 'scheduled') await this.startJob(job)
      if (this.live.size < this.d.maxCalls && job.pending > 0) {
        const resolved = await this.resolve(job)
        if (!resolved) {
          await this.failJob(job, 'the agent or the caller-ID number can no longer place calls')
          continue
        }
        const ctx = { owner: this.d.owner, leaseMs: this.leaseMs, agentName: resolved.agent.name, fromNumber: resolved.route.e164 }
        while (!this.stopped && this.live.size < this.d.maxCalls) {
          const claim = await claimNext(this.d.db, job.id, { ...ctx, nowMs: this.now() })
          if (!claim) break
          if (claim !== 'again') await this.dial(job, claim, resolved)
          // bun:sqlite answers at once: without this a long pass would hold the event loop
          await yieldTurn()
        }
      }
      logJobClosed(this.d.log, await this.d.db.transaction().execute((trx) => closeIfDone(trx as Db, this.d.events, job.id)))
    }
  }

  private async startJob(job: OutboundJobRow): Promise<void> {
    const started = await this.d.db.transaction().execute(async (trx) => {
      const at = nowIso()
      if (!(await repo.setJob(trx, job.id, { status: 'in_progress', started_at: at }, ['scheduled']))) return false
      await this.d.events.emit(trx, { type: 'job.started', workspaceId: job.workspace_id, jobId: job.id, at })
      return true
    })
    // another node may have started it first: that node logs it
    if (started) logJobChange(this.d.log, job, 'started', 'in_progress')
  }

  private async resolve(job: OutboundJobRow) {
    const route = await getNumberRoute(this.d.db, this.d.box, job.phone_number_id)
    const agent = await snapshotAgent(this.d.db, job.agent_id, { workspaceId: job.workspace_id }).catch(() => undefined)
    if (!route || route.workspaceId !== job.workspace_id || !route.sip || !agent || agent.agentType !== 'outbound') return undefined
    return { route, agent }
  }

  private async dial(job: OutboundJobRow, claim: Claim, r: { route: NumberRoute; agent: AgentSnapshot }): Promise<void> {
    const settings = settingsOf(job)
    const { callId } = claim
    const contactId = claim.contact.id
    const variables = JSON.parse(claim.contact.variables) as Record<string, string>
    this.live.set(callId, contactId)
    try {
      await this.d.dialer.dial({
        callId,
        route: r.route,
        agent: r.agent,
        to: claim.contact.to_number,
        variables,
        ringTimeoutMs: settings.ringTimeoutMs,
        answerGate: this.d.answerGate?.({ callId, settings, variables }),
        onEnded: () => this.ended(callId, contactId),
      })
    } catch (err) {
      this.live.delete(callId)
      if (err instanceof CallRefused) {
        // refused before any INVITE (stopping, no RTP port): the attempt did not happen
        await releaseClaim(this.d.db, claim, this.now() + 5000)
        return
      }
      this.d.log.warn({ err, callId, jobId: job.id }, 'campaign call could not be placed')
      // like every end of a call: with its analysis and its call.completed
      await ledger.failCall(this.d.db, callId, String((err as Error).message), { onlyOpen: true })
      await finishAttempt(this.d.db, this.d.events, contactId, callId, this.now(), this.d.log)
    }
  }

  private ended(callId: string, contactId: string): void {
    this.live.delete(callId)
    const p = finishAttempt(this.d.db, this.d.events, contactId, callId, this.now(), this.d.log)
      .catch((err) => this.d.log.error({ err, callId }, 'could not record a campaign attempt; it is reconciled at the next start'))
      .finally(() => {
        this.settling.delete(p)
        this.poke()
      })
    this.settling.add(p)
  }

  private async failJob(job: OutboundJobRow, reason: string): Promise<void> {
    const failed = await this.d.db.transaction().execute(async (trx) => {
      const at = nowIso()
      const r = await trx.updateTable('outbound_contacts').set({ status: 'failed', outcome: 'failed', updated_at: at }).where('job_id', '=', job.id).where('status', '=', 'pending').executeTakeFirst()
      const n = Number(r.numUpdatedRows)
      await repo.bump(trx, job.id, { pending: -n, failed: n })
      if (!(await repo.setJob(trx, job.id, { status: 'failed', completed_at: at }, ['in_progress']))) return undefined
      await this.d.events.emit(trx, { type: 'job.completed', workspaceId: job.workspace_id, jobId: job.id, status: 'failed', at })
      return repo.findJobById(trx, job.id)
    })
    if (failed) logJobChange(this.d.log, failed, 'failed', 'failed', { reason, ended: failed.active === 0 })
  }

  /** Sleeps until the next due moment (a scheduled start, a retry, a window opening). */
  private async arm(): Promise<void> {
    clearTimeout(this.timer)
    if (this.stopped) return
    const next = await repo.nextDueMs(this.d.db)
    if (next === undefined) {
      if (this.d.idleRecheckMs) this.timer = setTimeout(() => this.poke(), this.d.idleRecheckMs)
      return
    }
    const wait = next - this.now()
    this.timer = setTimeout(() => this.poke(), wait <= 0 ? FULL_RECHECK_MS : Math.min(wait, MAX_SLEEP_MS))
  }

  private async keepLeases(): Promise<void> {
    if (this.stopped) return
    try {
      await repo.renewLeases(this.d.db, this.d.owner, [...this.live.values()], this.now() + this.leaseMs)
      await this.reconcile(undefined)
    } catch (err) {
      this.d.log.warn({ err }, 'campaign lease renewal failed')
    }
  }

  /**
   * Attempts under a lease of ours at start (a previous run of this node was killed), or under
   * anyone's expired lease (a node was lost): the call row tells what happened.
   */
  private async reconcile(mine: string | undefined): Promise<void> {
    const stale = await repo.staleClaims(this.d.db, mine, this.now())
    for (const c of stale) {
      if (!c.call_id || this.live.has(c.call_id)) continue
      await ledger.failCall(this.d.db, c.call_id, 'lease_expired', { onlyOpen: true })
      await finishAttempt(this.d.db, this.d.events, c.id, c.call_id, this.now(), this.d.log)
    }
    if (stale.length) this.poke()
  }
}
