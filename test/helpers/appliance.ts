import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type Appliance, startAppliance } from '../../src/app/appliance.ts'
import type { CampaignEvents } from '../../src/features/campaigns/index.ts'
import type { CapacityModel } from '../../src/features/calls/index.ts'
import { type Config, loadConfig } from '../../src/platform/config/index.ts'
import { createLogger } from '../../src/platform/log.ts'
import { createDatabaseOn } from './postgres.ts'

export interface TestAppliance {
  appliance: Appliance
  url: string
  dataDir: string
  /** The bootstrap admin key of workspace "Default". */
  adminKey: string
  /** The id of workspace "Default". */
  workspaceId: string
  api: Api
  stop(opts?: { keepData?: boolean }): Promise<void>
}

export interface ApiResponse<T = any> {
  status: number
  headers: Headers
  body: T
}

export type Api = (method: string, path: string, opts?: { key?: string | null; body?: unknown; headers?: Record<string, string> }) => Promise<ApiResponse>

export function apiClient(url: string, defaultKey: string): Api {
  return async (method, path, opts = {}) => {
    const headers: Record<string, string> = { ...opts.headers }
    const key = opts.key === undefined ? defaultKey : opts.key
    if (key !== null) headers.authorization = `Bearer ${key}`
    let body: string | undefined
    if (opts.body !== undefined) {
      body = typeof opts.body === 'string' ? opts.body : JSON.stringify(opts.body)
      headers['content-type'] ??= 'application/json'
    }
    const res = await fetch(url + path, { method, headers, body })
    const text = await res.text()
    let parsed: unknown = text
    try {
      parsed = text ? JSON.parse(text) : undefined
    } catch {}
    return { status: res.status, headers: res.headers, body: parsed as any }
  }
}

/**
 * Starts a real appliance on a fresh temporary DATA_DIR (a real SQLite file) and a free port.
 * With TEST_DATABASE_URL set (a PostgreSQL server's admin URL) it gets a fresh database there
 * instead; a restart on the same DATA_DIR finds the same database again.
 */
export async function startTestAppliance(
  overrides: Partial<Config> = {},
  dataDir?: string,
  logSink?: { write(line: string): void },
  opts: { campaignEvents?: CampaignEvents; campaignClock?: () => number; capacity?: CapacityModel } = {},
): Promise<TestAppliance> {
  const dir = dataDir ?? mkdtempSync(join(tmpdir(), 'appliance-test-'))
  // below the kernel's ephemeral ports (32768+), which freePort() hands to SIPp, and baresip's 31000+
  const rtpBase = 20000 + 400 * Math.floor(Math.random() * 27)
  const database = overrides.DATABASE_URL ?? (await testDatabaseFor(dir))
  const config = loadConfig({}, {
    DATABASE_URL: database,
    HTTP_HOST: '127.0.0.1',
    HTTP_PORT: 0,
    SIP_HOST: '127.0.0.1',
    SIP_PORT: 0,
    SIP_TLS_PORT: 0,
    PUBLIC_HOST: '127.0.0.1',
    RTP_PORT_MIN: rtpBase,
    RTP_PORT_MAX: rtpBase + 398,
    // fast, deterministic engines unless a test asks for others
    VAD_ENGINE: 'energy',
    STT_PROVIDER: 'none',
    LLM_PROVIDER: 'none',
    CALL_DRAIN_MS: 0,
    // admission by live figures depends on this machine's load: off unless a test asks for it (or injects opts.capacity)
    CAPACITY_LAG_MS: 0,
    // calls run in two call workers, as on a 2-core machine, unless a test asks for the main thread
    CALL_WORKERS: process.env.TEST_CALL_WORKERS ?? '2',
    DATA_DIR: dir,
    LOG_LEVEL: 'silent',
    ...overrides,
  })
  const appliance = await startAppliance(config, createLogger(config.LOG_LEVEL, logSink), opts)
  const adminKey = readFileSync(join(dir, 'admin-api-key'), 'utf8').trim()
  const api = apiClient(appliance.url, adminKey)
  const list = await api('GET', '/api/workspaces')
  const workspaceId = list.body.workspaces[0].id as string
  return {
    appliance,
    url: appliance.url,
    dataDir: dir,
    adminKey,
    workspaceId,
    api,
    async stop(opts = {}) {
      await appliance.stop()
      if (!opts.keepData) rmSync(dir, { recursive: true, force: true })
    },
  }
}

// DATA_DIR -> its PostgreSQL database, so a test that restarts on the same DATA_DIR sees its data
const databases = new Map<string, string>()

async function testDatabaseFor(dataDir: string): Promise<string> {
  const admin = process.env.TEST_DATABASE_URL
  if (!admin) return ''
  let url = databases.get(dataDir)
  if (!url) databases.set(dataDir, (url = await createDatabaseOn(admin, 'appliance')))
  return url
}

/** Invites `email` with `role` and returns an API key acting as that member. */
export async function memberKey(t: TestAppliance, email: string, role: 'member' | 'admin' = 'member'): Promise<{ key: string; userId: string }> {
  const inv = await t.api('POST', `/api/workspaces/${t.workspaceId}/members`, { body: { email, role } })
  if (inv.status !== 200) throw new Error(`invite failed: ${JSON.stringify(inv.body)}`)
  const userId = inv.body.member.userId as string
  const key = await t.api('POST', `/api/workspaces/${t.workspaceId}/api-keys`, { body: { name: `${role} key`, userId } })
  if (key.status !== 200) throw new Error(`key failed: ${JSON.stringify(key.body)}`)
  return { key: key.body.apiKey.key, userId }
}
