// A throwaway PostgreSQL cluster for tests: initdb and pg_ctl (Debian's `postgresql`) in a
// temporary directory, on a free port of 127.0.0.1, its unix socket inside that directory.
// PostgreSQL refuses to run as root, so as root the cluster runs as the `postgres` system user.
// Each caller gets a database of its own (CREATE DATABASE), so tests never share rows.
import { spawnSync } from 'bun'
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir, userInfo } from 'node:os'
import { join } from 'node:path'
import pg from 'pg'

// Debian keeps the server binaries under /usr/lib/postgresql/<version>/bin; the newest wins
const versioned = existsSync('/usr/lib/postgresql')
  ? readdirSync('/usr/lib/postgresql').sort((a, b) => Number(b) - Number(a)).map((v) => `/usr/lib/postgresql/${v}/bin`)
  : []
const BIN_DIRS = [...versioned, '/usr/local/bin', '/usr/bin']
const binary = (name: string) => BIN_DIRS.map((d) => join(d, name)).find((p) => existsSync(p))

/** True when initdb, pg_ctl and postgres are installed. */
export const postgresInstalled = (): boolean => ['initdb', 'pg_ctl', 'postgres'].every((n) => binary(n) !== undefined)

export interface PostgresCluster {
  /** Admin URL of the cluster (database `postgres`, user `postgres`, no password). */
  adminUrl: string
  port: number
  /** Creates an empty database and returns its URL. */
  createDatabase(prefix?: string): Promise<string>
  stop(): void
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer()
    s.once('error', reject)
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port
      s.close(() => resolve(port))
    })
  })
}

function run(cmd: string[], asPostgres: boolean): void {
  const full = asPostgres ? ['runuser', '-u', 'postgres', '--', ...cmd] : cmd
  const r = spawnSync(full, { stdout: 'pipe', stderr: 'pipe' })
  if (r.exitCode !== 0) throw new Error(`${cmd.join(' ')} failed: ${r.stderr.toString()}${r.stdout.toString()}`)
}

let counter = 0

/** Creates a database named `prefix_N_random` on the server of `adminUrl` and returns its URL. */
export async function createDatabaseOn(adminUrl: string, prefix = 'test'): Promise<string> {
  const name = `${prefix}_${process.pid}_${++counter}_${Math.random().toString(36).slice(2, 8)}`
  const client = new pg.Client({ connectionString: adminUrl })
  await client.connect()
  try {
    await client.query(`CREATE DATABASE "${name}"`)
  } finally {
    await client.end()
  }
  const url = new URL(adminUrl)
  url.pathname = `/${name}`
  return url.toString()
}

/** Starts a new cluster; `stop()` (or the end of this process) shuts it down and deletes its files. */
export async function startPostgres(): Promise<PostgresCluster> {
  const initdb = binary('initdb')
  const pgCtl = binary('pg_ctl')
  if (!initdb || !pgCtl) throw new Error('PostgreSQL is not installed (Debian package postgresql)')
  const asPostgres = userInfo().uid === 0
  const dir = mkdtempSync(join(tmpdir(), 'pg-test-'))
  chmodSync(dir, 0o700)
  if (asPostgres) {
    const pwd = spawnSync(['id', '-u', 'postgres'], { stdout: 'pipe' })
    const gid = spawnSync(['id', '-g', 'postgres'], { stdout: 'pipe' })
    chownSync(dir, Number(pwd.stdout.toString()), Number(gid.stdout.toString()))
  }
  const data = join(dir, 'data')
  run([initdb, '-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync', '--no-instructions'], asPostgres)
  const port = await freePort()
  // a test cluster: durability off, enough connections for several appliances of 10 each
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=300`
  run([pgCtl, '-D', data, '-l', join(dir, 'log'), '-o', options, '-w', '-t', '60', 'start'], asPostgres)
  let stopped = false
  const stop = () => {
    if (stopped) return
    stopped = true
    process.off('exit', stop)
    try {
      run([pgCtl, '-D', data, '-m', 'immediate', '-w', 'stop'], asPostgres)
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  }
  process.on('exit', stop)
  const adminUrl = `postgres://postgres@127.0.0.1:${port}/postgres`
  return { adminUrl, port, createDatabase: (prefix) => createDatabaseOn(adminUrl, prefix), stop }
}

let shared: Promise<PostgresCluster> | undefined

/**
 * The server tests create their databases on: TEST_DATABASE_URL's when set (scripts/test.ts
 * starts one cluster for its PostgreSQL pass), else one cluster per test process, started on first use.
 */
export function sharedPostgres(): Promise<PostgresCluster> {
  const fromEnv = process.env.TEST_DATABASE_URL
  if (fromEnv) {
    const port = Number(new URL(fromEnv).port)
    return Promise.resolve({ adminUrl: fromEnv, port, createDatabase: (prefix) => createDatabaseOn(fromEnv, prefix), stop() {} })
  }
  shared ??= startPostgres()
  return shared
}
