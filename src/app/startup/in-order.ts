// Subsystems start one after the other and stop in the reverse order, so each one stops while
// everything it was started on is still running.

export interface Running {
  stop(): Promise<void> | void
}

/** A subsystem to start: its start resolves once it is running and says how to stop it. */
export type Step = () => Promise<Running> | Running

/**
 * Starts `steps` in order. If one fails to start, the ones already running are stopped in
 * reverse (their own stop failures are swallowed so the start failure is what the caller sees)
 * and the failure is rethrown. The result stops all of them in reverse.
 */
export async function startInOrder(steps: readonly Step[]): Promise<Running> {
  const running: Running[] = []
  try {
    for (const step of steps) running.push(await step())
  } catch (err) {
    for (const r of running.reverse()) await Promise.resolve().then(() => r.stop()).catch(() => {})
    throw err
  }
  return {
    async stop() {
      for (const r of [...running].reverse()) await r.stop()
    },
  }
}

/** `stop` made safe to call twice: the second call waits for the first. */
export function once(stop: () => Promise<void>): () => Promise<void> {
  let stopping: Promise<void> | undefined
  return () => (stopping ??= stop())
}
