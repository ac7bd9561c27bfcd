// `voice-agent capacity --write`: CALLS_MAX into the configuration file, the other keys kept.
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs'

export class CapacityWriteError extends Error {}

/** The file `loadConfig` reads: CONFIG_FILE, else appliance.config.json (made when missing). */
export function configFileOf(env: Record<string, string | undefined>): string {
  return env.CONFIG_FILE ?? 'appliance.config.json'
}

export function writeCallsMax(file: string, callsMax: number): void {
  let current: Record<string, unknown> = {}
  if (existsSync(file)) {
    try {
      current = JSON.parse(readFileSync(file, 'utf8'))
    } catch (err) {
      throw new CapacityWriteError(`cannot read config file ${file}: ${(err as Error).message}; nothing written`)
    }
    if (typeof current !== 'object' || current === null || Array.isArray(current)) throw new CapacityWriteError(`config file ${file} is not a JSON object; nothing written`)
  }
  // a reader never sees half a file
  const tmp = `${file}.capacity-tmp`
  writeFileSync(tmp, `${JSON.stringify({ ...current, CALLS_MAX: callsMax }, null, 2)}\n`)
  renameSync(tmp, file)
}
