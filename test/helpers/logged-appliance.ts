import type { Config } from '../../src/platform/config/index.ts'
import { startTestAppliance, type TestAppliance } from './appliance.ts'

/** Like startTestAppliance, with every log line (level trace) kept in `logs` for assertions. */
export async function startLoggedAppliance(overrides: Partial<Config> = {}): Promise<TestAppliance & { logs: string[] }> {
  const logs: string[] = []
  const t = await startTestAppliance({ LOG_LEVEL: 'trace', ...overrides }, undefined, {
    // One write may carry several lines (access lines are batched); keep one entry per line.
    write: (chunk) => {
      for (const line of chunk.split('\n')) if (line !== '') logs.push(`${line}\n`)
    },
  })
  return { ...t, logs }
}
