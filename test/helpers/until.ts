/** Waits until `cond` holds, checking every few milliseconds; fails after `timeoutMs`. */
export async function until(cond: () => boolean, timeoutMs = 5000, what = 'condition'): Promise<void> {
  const end = Date.now() + timeoutMs
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`)
    await Bun.sleep(10)
  }
}

/** Waits until the async `cond` resolves true, checking every few milliseconds; fails after `timeoutMs`. */
export async function untilAsync(cond: () => Promise<boolean>, timeoutMs = 5000, what = 'condition'): Promise<void> {
  const end = Date.now() + timeoutMs
  while (!(await cond())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`)
    await Bun.sleep(10)
  }
}
