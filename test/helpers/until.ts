/** Waits until `cond` holds, checking every few milliseconds; fails after `timeoutMs`. */
export async function until(cond: () => boolean, timeoutMs = 5000, what = 'condition'): Promise<void> {
  const end = Date.now() + timeoutMs
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`)
    await Bun.sleep(10)
  }
}

/**
 * Waits until the async `cond` resolves true, checking every `everyMs`; fails after `timeoutMs`.
 * Conditions that ask the API should poll slowly enough to stay under its per-key rate limit.
 */
export async function untilAsync(cond: () => Promise<boolean>, timeoutMs = 5000, what = 'condition', everyMs = 10): Promise<void> {
  const end = Date.now() + timeoutMs
  while (!(await cond())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`)
    await Bun.sleep(everyMs)
  }
}
