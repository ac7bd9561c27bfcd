// One appliance node as its own process (`bun src/main.ts`): on its own SQLite DATA_DIR for the
// SIP-only cluster tests, or on a shared PostgreSQL database with the secret key (recording
// links, trunk passwords) and the admin key of the node it joins.
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { apiClient, type Api } from '../../helpers/appliance.ts'
import { freePort } from '../../helpers/sipp.ts'
import { untilAsync } from '../../helpers/until.ts'

const ROOT = join(import.meta.dir, '../../..')

export interface NodeProcess {
  name: string
  url: string
  sipPort: number
  sipUri: string
  api: Api
  pid: number
  dataDir: string
  adminKey: string
  kill(signal?: 'SIGKILL' | 'SIGTERM'): Promise<void>
  stop(): Promise<void>
}

export interface NodeOptions {
  env?: Record<string, string>
  /** A node on the same database to join: its secret key is copied, its admin key used. */
  joins?: NodeProcess
}

export async function startNode(name: string, o: NodeOptions = {}): Promise<NodeProcess> {
  const dir = mkdtempSync(join(tmpdir(), `node-${name}-`))
  if (o.joins) copyFileSync(join(o.joins.dataDir, 'secret.key'), join(dir, 'secret.key'))
  const [httpPort, sipPort] = [await freePort(), await freePort()]
  const rtpBase = 20000 + 400 * Math.floor(Math.random() * 50)
  const proc = Bun.spawn([join(ROOT, 'node_modules/.bin/bun'), join(ROOT, 'src/main.ts')], {
    cwd: dir,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: dir,
      DATA_DIR: dir,
      HTTP_HOST: '127.0.0.1',
      HTTP_PORT: String(httpPort),
      SIP_HOST: '127.0.0.1',
      SIP_PORT: String(sipPort),
      SIP_TLS_PORT: '0',
      PUBLIC_HOST: '127.0.0.1',
      RTP_PORT_MIN: String(rtpBase),
      RTP_PORT_MAX: String(rtpBase + 398),
      VAD_ENGINE: 'energy',
      STT_PROVIDER: 'none',
      LLM_PROVIDER: 'none',
      CALL_DRAIN_MS: '0',
      NODE_ID: name,
      LOG_LEVEL: 'warn',
      ...o.env,
    },
    stdout: 'ignore',
    stderr: 'pipe',
  })
  const url = `http://127.0.0.1:${httpPort}`
  const stderr = new Response(proc.stderr).text()
  await untilAsync(
    async () => {
      if (proc.exitCode !== null) throw new Error(`node ${name} exited (${proc.exitCode}): ${await stderr}`)
      return (await fetch(`${url}/ready`).catch(() => undefined))?.status === 200
    },
    30_000,
    `node ${name} to be ready`,
    100,
  )
  const adminKey = o.joins?.adminKey ?? readFileSync(join(dir, 'admin-api-key'), 'utf8').trim()
  const api = apiClient(url, adminKey)
  const kill = async (signal: 'SIGKILL' | 'SIGTERM' = 'SIGKILL') => {
    if (proc.exitCode === null && proc.signalCode === null) proc.kill(signal)
    await proc.exited
  }
  return {
    name,
    url,
    sipPort,
    sipUri: `sip:127.0.0.1:${sipPort}`,
    api,
    pid: proc.pid,
    dataDir: dir,
    adminKey,
    kill,
    async stop() {
      await kill('SIGTERM')
      rmSync(dir, { recursive: true, force: true })
    },
  }
}
