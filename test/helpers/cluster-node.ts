// One appliance node of a cluster as its own process (`bun src/main.ts`), sharing a PostgreSQL
// database with the others: its own DATA_DIR (with the cluster's shared secret.key), NODE_ID and
// ports. Resolves once /ready answers; kill() is SIGKILL, a node lost mid-work.
import type { Subprocess } from 'bun'
import { afterAll } from 'bun:test'
import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type Api, apiClient } from './appliance.ts'
import { collectLogLines, collectText } from './child-output.ts'
import { freePort } from './sipp.ts'
import { tempDir } from './tmp.ts'
import { loadOrCreateSecretKey, SECRET_KEY_FILE } from '../../src/platform/secrets/index.ts'

const ROOT = join(import.meta.dir, '../..')
const BUN = join(ROOT, 'node_modules/.bin/bun')

export interface ClusterNode {
  nodeId: string
  url: string
  sipPort: number
  dataDir: string
  proc: Subprocess
  /** Every log line the process wrote so far, parsed. */
  logs: any[]
  /** SIGKILL: no graceful stop, leases and calls left as they are. */
  kill(): Promise<void>
  /** SIGTERM and wait for the exit code. */
  stop(): Promise<number>
}

export interface ClusterNodeOptions {
  databaseUrl: string
  nodeId: string
  /** A secret.key to share: every node must seal and open SIP passwords and webhook secrets alike. */
  secretKeyFile?: string
  env?: Record<string, string>
}

/** Starts a node; rejects if it exits before /ready answers or within `timeoutMs`. */
/**
 * The test's own clock settings for a node it starts with a clean environment: under `faketime`
 * (the suite a year ahead) the nodes keep the test's clock, as machines of one cluster share NTP.
 */
function sharedClock(): Record<string, string> {
  return Object.fromEntries(Object.entries(process.env).filter((e): e is [string, string] => e[1] !== undefined && (e[0] === 'LD_PRELOAD' || e[0].startsWith('FAKETIME'))))
}

export async function startClusterNode(o: ClusterNodeOptions, timeoutMs = 30_000): Promise<ClusterNode> {
  const dataDir = join(mkdtempSync(join(tmpdir(), `node-${o.nodeId}-`)), 'data')
  mkdirSync(dataDir, { recursive: true, mode: 0o700 })
  if (o.secretKeyFile) copyFileSync(o.secretKeyFile, join(dataDir, 'secret.key'))
  const httpPort = await freePort()
  const sipPort = await freePort()
  // below the kernel's ephemeral ports (32768+), which freePort() hands to SIPp, and apart from test appliances' 20000-30800
  const rtpBase = 10000 + 400 * Math.floor(Math.random() * 25)
  const proc = Bun.spawn([BUN, join(ROOT, 'src/main.ts')], {
    cwd: ROOT,
    env: {
      ...sharedClock(),
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: process.env.HOME ?? '/tmp',
      DATABASE_URL: o.databaseUrl,
      NODE_ID: o.nodeId,
      DATA_DIR: dataDir,
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
      // admission by live figures depends on this machine's load: off unless a test asks for it
      CAPACITY_LAG_MS: '0',
      LOG_LEVEL: 'info',
      ...o.env,
    },
    stdout: 'pipe',
    stderr: 'pipe',
  })
  const logs: any[] = []
  collectLogLines(proc.stdout, logs)
  const stderr = collectText(proc.stderr)
  const url = `http://127.0.0.1:${httpPort}`
  const end = Date.now() + timeoutMs
  for (;;) {
    if (proc.exitCode !== null) throw new Error(`node ${o.nodeId} exited with ${proc.exitCode}: ${stderr().slice(-2000)}`)
    const ready = await fetch(`${url}/ready`).then((r) => r.status === 200, () => false)
    if (ready) break
    if (Date.now() > end) {
      proc.kill('SIGKILL')
      throw new Error(`node ${o.nodeId} not ready within ${timeoutMs} ms: ${stderr().slice(-2000)}`)
    }
    await Bun.sleep(50)
  }
  const cleanup = () => rmSync(join(dataDir, '..'), { recursive: true, force: true })
  return {
    nodeId: o.nodeId,
    url,
    sipPort,
    dataDir,
    proc,
    logs,
    async kill() {
      proc.kill('SIGKILL')
      await proc.exited
      cleanup()
    },
    async stop() {
      proc.kill('SIGTERM')
      const code = await proc.exited
      cleanup()
      return code
    },
  }
}

/** An API client of `node` with `key`. */
export const nodeApi = (node: ClusterNode, key: string): Api => apiClient(node.url, key)

/**
 * What a cluster test file shares: the nodes it starts (push each one; those still running are
 * SIGKILLed after the file) and one secret.key for all of them. Call at a test file's top level.
 */
export function clusterNodes(): { nodes: ClusterNode[]; secretKeyFile: string } {
  const nodes: ClusterNode[] = []
  const keyDir = tempDir('cluster-key-')
  loadOrCreateSecretKey(keyDir)
  afterAll(async () => {
    for (const n of nodes) if (n.proc.exitCode === null) await n.kill()
  })
  return { nodes, secretKeyFile: join(keyDir, SECRET_KEY_FILE) }
}
