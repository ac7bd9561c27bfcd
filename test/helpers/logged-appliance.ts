import type { Config } from '../../src/config.ts'
import { startTestAppliance, type TestAppliance } from './appliance.ts'

/** Like startTestAppliance, with every log line (level trace) kept in `logs` for assertions. */
export async function startLoggedAppliance(overrides: Partial<Config> = {}): Promise<TestAppliance & { logs: string[] }> {
  const logs: string[] = []
  const t = await startTestAppliance({ LOG_LEVEL: 'trace', ...overrides }, undefined, { write: (line) => logs.push(line) })
  return { ...t, logs }
}
