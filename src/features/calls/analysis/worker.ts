import { sql } from 'kysely'
import type { Db } from '../../../platform/db/index.ts'
import { newId } from '../../../platform/ids.ts'
import { claimRows, NO_LEASE, Poller } from '../../../platform/jobs/index.ts'
import type { Logger } from '../../../platform/log.ts'
import type { Llm } from '../../../realtime/voice/llm/index.ts'
import { callCost, type PriceTable } from '../../../realtime/voice/turn/index.ts'
import { releaseCallEvents } from '../../webhooks/index.ts'
import type { CallCost, TranscriptItem } from '../calls.model.ts'
import type { CallRow } from '../calls.table.ts'
import * as ledger from '../records/ledger.ts'
import type { AnalysisRow } from '../records/records.table.ts'
import { analysisMessages, analysisSchema, readAnalysis, weightedScore, type LlmAnalysis } from './llm-analysis.ts'
import { offlineAnalysis, type AnalysisResult } from './offline.ts'
import { analysisSettingsOf } from './settings.ts'

export interface AnalysisWorkerOptions {
  db: Db
  log: Logger
  /** The appliance's LLM, whatever provider serves it; undefined: the offline analysis only. */
  llm?: Llm
  prices: PriceTable
  pollMs: number
  concurrency?: number
  /** A call's held webhook events were released. */
  onReleased?(): void
}

const LEASE_MS = 120_000
/** A whole analysis answer, retries included, within this; the lease outlasts it. */
const LLM_TIMEOUT_MS = 30_000
const MAX_ATTEMPTS = 3
const RETRY_MS = 30_000

interface Outcome {
  result: AnalysisResult
  model: string
  inputTokens: number
  outputTokens: number
  cost: number
  /** The model, when it has no price (its cost is then not counted). */
  unpriced?: string[]
  evaluation?: { score: number; criteria: LlmAnalysis['scores'] }
}

/**
 * Analyses ended calls in the background: claims pending analyses with a lease, runs the LLM
 * analysis (with an LLM configured) or the offline one, and stores the result, its cost and the
 * automatic evaluation in one transaction that also releases the call's held webhook events.
 */
export class AnalysisWorker {
  readonly owner = newId('wrk')
  private readonly poller: Poller

  constructor(private readonly o: AnalysisWorkerOptions) {
    this.poller = new Poller('analysis', o.pollMs, () => this.tick(), o.log)
  }

  start(): void {
    this.poller.start()
  }

  wake(): void {
    this.poller.wake()
  }

  stop(): Promise<void> {
    return this.poller.stop()
  }

  private async tick(): Promise<void> {
    const now = new Date()
    const claimed = await claimRows<AnalysisRow>(this.o.db, {
      table: 'call_analyses', key: 'call_id', orderBy: 'run_after', owner: this.owner, now, leaseMs: LEASE_MS, limit: this.o.concurrency ?? 2, countAttempt: true,
      due: sql`status = 'pending' AND run_after <= ${now.toISOString()}`,
    })
    await Promise.all(claimed.map((row) => this.analyse(row)))
    if (claimed.length) this.poller.wake()
  }

  private async analyse(row: AnalysisRow): Promise<void> {
    const call = await this.o.db.selectFrom('calls').selectAll().where('id', '=', row.call_id).executeTakeFirst()
    if (!call) return
    try {
      await this.complete(call, await this.run(call))
    } catch (err) {
      const error = (err as Error).message.slice(0, 500)
      const final = row.attempts >= MAX_ATTEMPTS
      this.o.log.warn({ callId: call.id, attempt: row.attempts, error }, final ? 'call analysis failed for good' : 'call analysis failed; it is retried')
      await this.o.db.transaction().execute(async (trx) => {
        const now = new Date()
        const res = await trx
          .updateTable('call_analyses')
          .set({ status: final ? 'failed' : 'pending', error, run_after: new Date(now.getTime() + RETRY_MS * row.attempts).toISOString(), ...NO_LEASE })
          .where('call_id', '=', call.id).where('lease_owner', '=', this.owner)
          .executeTakeFirst()
        if (final && res.numUpdatedRows > 0n) await releaseCallEvents(trx, call.id, now)
      })
      if (final) this.o.onReleased?.()
    }
  }

  private async run(call: CallRow): Promise<Outcome> {
    const transcript = JSON.parse(call.transcript) as TranscriptItem[]
    const input = { type: call.type, outcome: call.outcome, durationSec: call.duration_sec, transcript, answeredBy: call.answered_by }
    const llm = this.o.llm
    // nothing was said (unanswered, or silence): there is nothing for a model to read
    if (!llm || transcript.length === 0) return { result: offlineAnalysis(input), model: '', inputTokens: 0, outputTokens: 0, cost: 0 }
    const settings = await analysisSettingsOf(this.o.db, call.agent_id)
    const criteria = settings.evaluationCriteria
    const answer = await llm.complete(analysisMessages(settings.prompt, transcript, criteria, call.answered_by), {
      schema: { name: 'call_analysis', schema: analysisSchema(criteria) },
      model: settings.model || undefined,
      timeoutMs: LLM_TIMEOUT_MS,
    })
    const parsed = readAnalysis(answer.value, criteria)
    // detection heard the line; the model only read a transcript
    const result = { summary: parsed.summary, sentiment: parsed.sentiment, isVoicemail: call.answered_by ? call.answered_by === 'machine' : parsed.isVoicemail }
    const usage = { model: answer.model, inputTokens: answer.inputTokens, outputTokens: answer.outputTokens }
    const cached = answer.cachedInputTokens ? { cachedInputTokens: answer.cachedInputTokens } : {}
    const priced = callCost(this.o.prices, { direction: call.type, durationMs: 0, llm: [{ ...usage, ...cached }], tts: [], stt: [] })
    return {
      result,
      ...usage,
      cost: priced.llm,
      unpriced: priced.unpriced,
      evaluation: criteria.length ? { score: weightedScore(criteria, parsed.scores), criteria: parsed.scores } : undefined,
    }
  }

  private async complete(call: CallRow, out: Outcome): Promise<void> {
    const now = new Date()
    const at = now.toISOString()
    await this.o.db.transaction().execute(async (trx) => {
      const res = await trx
        .updateTable('call_analyses')
        .set({
          status: 'completed', summary: out.result.summary, sentiment: out.result.sentiment, is_voicemail: out.result.isVoicemail ? 1 : 0,
          model: out.model, input_tokens: out.inputTokens, output_tokens: out.outputTokens, cost: out.cost, error: null,
          completed_at: at, ...NO_LEASE,
        })
        .where('call_id', '=', call.id).where('lease_owner', '=', this.owner)
        .executeTakeFirst()
      if (res.numUpdatedRows === 0n) return
      const fresh = await trx.selectFrom('calls').select('cost').where('id', '=', call.id).executeTakeFirstOrThrow()
      await ledger.recordAnalysisCost(trx, call.id, withAnalysisCost(fresh.cost, out.cost, out.unpriced))
      await trx.deleteFrom('call_evaluations').where('call_id', '=', call.id).where('type', '=', 'automatic').execute()
      if (out.evaluation) {
        await trx
          .insertInto('call_evaluations')
          .values({
            id: newId('eval'), call_id: call.id, workspace_id: call.workspace_id, type: 'automatic', score: out.evaluation.score,
            evaluator_name: out.model, comment: '', criteria: JSON.stringify(out.evaluation.criteria), created_at: at,
          })
          .execute()
      }
      await releaseCallEvents(trx, call.id, now)
    })
    this.o.onReleased?.()
  }
}

const money = (n: number) => Math.round(n * 1e6) / 1e6

/** The call's cost with the analysis in it, the total recomputed; an unpriced analysis model joins the call's unpriced ones. */
export function withAnalysisCost(costJson: string, analysis: number, analysisUnpriced: string[] = []): CallCost {
  let cost: Partial<CallCost> = {}
  try {
    cost = JSON.parse(costJson) ?? {}
  } catch {}
  const parts = { llm: cost.llm ?? 0, tts: cost.tts ?? 0, stt: cost.stt ?? 0, telephony: cost.telephony ?? 0 }
  const out: CallCost = { ...cost, ...parts, analysis: money(analysis), total: money(parts.llm + parts.tts + parts.stt + parts.telephony + analysis) }
  const unpriced = [...new Set([...(cost.unpriced ?? []), ...analysisUnpriced])].sort()
  if (unpriced.length) out.unpriced = unpriced
  return out
}
