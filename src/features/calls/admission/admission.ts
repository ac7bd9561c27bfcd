// Whether one more call may start: every kind (inbound, outbound, web, media stream) asks here
// before anything is answered or dialled. A call is refused when its workspace has its
// maxConcurrentCalls up, or when the capacity model sees no headroom; the refusal policy
// decides how the caller is told. A taken ticket is given back once, when the call ends.
import type { Db } from '../../../platform/db/index.ts'
import type { CallRefusalReason, RefusalPolicy } from '../../../realtime/telephony/refusal/index.ts'
import { workspaceCallLimit } from '../../workspaces/index.ts'
import { CallRefused } from '../runtime/refused.ts'
import { UNLIMITED, type CapacityFigures, type CapacityModel } from './capacity.ts'

export type CallKind = 'inbound' | 'outbound' | 'web' | 'stream'

export interface Ticket {
  readonly workspaceId: string
  readonly kind: CallKind
  /** Gives the place back; once, whatever calls it again. */
  release(): void
}

export interface AdmissionDeps {
  db: Db
  policy: RefusalPolicy
  /** Headroom of this node (capacity.ts); absent: only the workspace limits apply. */
  capacity?: CapacityModel
  /** Every refusal, for metrics and the operator's log. */
  onRefused?: (reason: CallRefusalReason, kind: CallKind, workspaceId: string) => void
}

export class Admission {
  private readonly up = new Map<string, number>()
  private total = 0

  constructor(private readonly d: AdmissionDeps) {}

  /** A ticket for one more call of the workspace, or CallRefused (workspace_limit, no_headroom). */
  async admit(workspaceId: string, kind: CallKind): Promise<Ticket> {
    const limit = (await workspaceCallLimit(this.d.db, workspaceId)) ?? null
    // from here on synchronous: two calls admitted at once cannot both take the last place
    const inUse = this.up.get(workspaceId) ?? 0
    if (limit !== null && inUse >= limit) {
      throw this.refused('workspace_limit', kind, workspaceId, `the workspace has ${inUse} calls up, its maxConcurrentCalls (${limit}); retry when one ends`)
    }
    const headroom = this.d.capacity?.figures(this.total).headroom
    if (headroom !== undefined && headroom <= 0) throw this.refused('no_headroom', kind, workspaceId)
    this.up.set(workspaceId, inUse + 1)
    this.total++
    let given = false
    return {
      workspaceId,
      kind,
      release: () => {
        if (given) return
        given = true
        this.total--
        const n = (this.up.get(workspaceId) ?? 1) - 1
        if (n > 0) this.up.set(workspaceId, n)
        else this.up.delete(workspaceId)
      },
    }
  }

  /** Capacity, calls up and headroom now. */
  figures(): CapacityFigures {
    return (this.d.capacity ?? UNLIMITED).figures(this.total)
  }

  /** Calls of the workspace up on this node now. */
  callsUp(workspaceId: string): number {
    return this.up.get(workspaceId) ?? 0
  }

  /** Calls up on this node now, every workspace. */
  get callsInProgress(): number {
    return this.total
  }

  /** A refusal of the policy, counted; thrown by the caller. */
  refused(reason: CallRefusalReason, kind: CallKind, workspaceId: string, message?: string): CallRefused {
    this.d.onRefused?.(reason, kind, workspaceId)
    return new CallRefused(this.d.policy.of(reason), message)
  }
}
