// Exponential backoff, the one rule for retrying work that failed for a cause that may pass (a
// storage bucket away, a database connection lost, a provider's stream cut): the delay doubles
// from firstMs with each failure, up to maxMs. Schedules an operator configures (webhook
// deliveries, campaign retries) are their own. Pure.

export interface Backoff {
  firstMs: number
  maxMs: number
}

/** The delay before the next attempt after `failures` failed ones (1 = the first failure): firstMs, 2 x firstMs, ... capped at maxMs. */
export const backoffDelayMs = (failures: number, b: Backoff): number => Math.min(b.maxMs, b.firstMs * 2 ** Math.max(0, failures - 1))
