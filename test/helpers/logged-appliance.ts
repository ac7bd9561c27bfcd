import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Writable } from 'node:stream'
import { startAppliance } from '../../src/appliance.ts'
import { type Config, loadConfig } from '../../src/config.ts'
import { createLogger } from '../../src/log.ts'
import { apiClient, type TestAppliance } from './appliance.ts'

/** Like startTestAppliance, with every log line (level trace) kept in `logs` for assertions. */
export async function startLoggedAppliance(overrides: Partial<Config> = {}): Promise<TestAppliance & { logs: string[] }> {
  const dir = mkdtempSync(join(tmpdir(), 'appliance-test-'))
  const logs: string[] = []
  const sink = new Writable({
    write(chunk, _enc, done) {
      logs.push(String(chunk))
      done()
    },
  })
  const config = loadConfig({}, { HTTP_HOST: '127.0.0.1', HTTP_PORT: 0, SIP_PORT: 0, SIP_TLS_PORT: 0, DATA_DIR: dir, LOG_LEVEL: 'trace', ...overrides })
  const appliance = await startAppliance(config, createLogger('trace', sink))
  const adminKey = readFileSync(join(dir, 'admin-api-key'), 'utf8').trim()
  const api = apiClient(appliance.url, adminKey)
  const workspaceId = (await api('GET', '/api/workspaces')).body.workspaces[0].id as string
  return {
    appliance,
    url: appliance.url,
    dataDir: dir,
    adminKey,
    workspaceId,
    api,
    logs,
    async stop(opts = {}) {
      await appliance.stop()
      if (!opts.keepData) rmSync(dir, { recursive: true, force: true })
    },
  }
}
