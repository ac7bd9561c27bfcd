// Voice previews per workspace: they run on the same TTS as live calls (flite's workers, or a
// billed cloud voice), so one member asking for them in a loop must not take that away.
import { AppError } from '../../platform/errors.ts'
import { RateLimiter } from '../../platform/rate-limit.ts'

export interface PreviewQuotaOptions {
  /** Previews of one workspace in progress at once (VOICE_PREVIEW_CONCURRENCY; 0: no limit). */
  concurrency: number
  /** Previews one workspace may ask for per minute (VOICE_PREVIEW_PER_MIN; 0: no limit). */
  perMin: number
  clock?: () => number
}

const refused = (message: string, retryAfterSec: number) =>
  new AppError(429, 'rate_limited', message, { retryAfterSec }, { 'retry-after': String(retryAfterSec) })

/** Kept in memory: a limit per appliance node, like the per-key rate limit. */
export class PreviewQuota {
  private readonly running = new Map<string, number>()
  private readonly rate: RateLimiter

  constructor(private readonly o: PreviewQuotaOptions) {
    // the whole minute's allowance may be spent at once; it comes back at perMin per minute
    this.rate = new RateLimiter(o.perMin / 60, Math.max(1, o.perMin), o.clock)
  }

  /** Takes a place for one preview of the workspace, or throws 429; call the returned function when it is done. */
  acquire(workspaceId: string): () => void {
    const now = this.running.get(workspaceId) ?? 0
    if (this.o.concurrency > 0 && now >= this.o.concurrency) {
      throw refused(`this workspace already has ${now} voice preview${now === 1 ? '' : 's'} in progress (VOICE_PREVIEW_CONCURRENCY); try again when it is done`, 1)
    }
    const wait = this.rate.take(workspaceId)
    if (wait > 0) throw refused(`this workspace asked for ${this.o.perMin} voice previews within a minute (VOICE_PREVIEW_PER_MIN); try again in ${wait} s`, wait)
    this.running.set(workspaceId, now + 1)
    let released = false
    return () => {
      if (released) return
      released = true
      const left = (this.running.get(workspaceId) ?? 1) - 1
      if (left > 0) this.running.set(workspaceId, left)
      else this.running.delete(workspaceId)
    }
  }
}
