// A throwaway PostgreSQL cluster for tests: initdb and postgres (Debian's `postgresql`) in a
// temporary directory, on a free port of 127.0.0.1, its unix socket inside that directory.
// PostgreSQL refuses to run as root, so as root the cluster runs as the `postgres` system user.
// Each caller gets a database of its own (CREATE DATABASE), so tests never share rows.
import { spawnSync } from 'bun'
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs'
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

/** True when initdb and postgres are installed. */
export const postgresInstalled = (): boolean => ['initdb', 'postgres'].every((n) => binary(n) !== undefined)

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

const PREFIX = 'pg-test-'

/** Deletes clusters of test processes that died without stopping them (their postmaster is gone). */
function sweepStale(): void {
  for (const name of readdirSync(tmpdir())) {
    if (!name.startsWith(PREFIX)) continue
    const dir = join(tmpdir(), name)
    try {
      const pid = Number(readFileSync(join(dir, 'data', 'postmaster.pid'), 'utf8').split('\n')[0])
      if (pid > 0 && alive(pid)) continue
    } catch {
      // no postmaster.pid: being created (keep it while young) or never started
      if (Date.now() - statSync(dir).mtimeMs < 120_000) continue
    }
    rmSync(dir, { recursive: true, force: true })
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM'
  }
}

/**
 * Starts a new cluster. The server is this process's child and is told to shut down when this
 * process ends however it ends (setpriv --pdeathsig: bun test runs no exit handlers); `stop()`
 * shuts it down at once and deletes its files.
 */
export async function startPostgres(): Promise<PostgresCluster> {
  const initdb = binary('initdb')
  const postgres = binary('postgres')
  if (!initdb || !postgres) throw new Error('PostgreSQL is not installed (Debian package postgresql)')
  sweepStale()
  const asPostgres = userInfo().uid === 0
  const dir = mkdtempSync(join(tmpdir(), PREFIX))
  chmodSync(dir, 0o700)
  if (asPostgres) {
    const uid = spawnSync(['id', '-u', 'postgres'], { stdout: 'pipe' })
    const gid = spawnSync(['id', '-g', 'postgres'], { stdout: 'pipe' })
    chownSync(dir, Number(uid.stdout.toString()), Number(gid.stdout.toString()))
  }
  const data = join(dir, 'data')
  run([initdb, '-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--locale=C', '--no-sync', '--no-instructions'], asPostgres)
  const port = await freePort()
  const user = asPostgres ? ['--reuid=postgres', '--regid=postgres', '--init-groups'] : []
  // a test cluster: durability off, enough connections for several appliances of 10 each
  const proc = Bun.spawn(['setpriv', ...user, '--pdeathsig', 'INT', postgres, '-D', data, '-p', String(port), '-k', dir,
    '-c', 'listen_addresses=127.0.0.1', '-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off', '-c', 'max_connections=300'], {
    stdout: 'ignore',
    stderr: Bun.file(join(dir, 'log')),
  })
  proc.unref()
  const adminUrl = `postgres://postgres@127.0.0.1:${port}/postgres`
  for (const end = Date.now() + 30_000; ; ) {
    if (proc.exitCode !== null) throw new Error(`postgres exited with ${proc.exitCode}: ${readFileSync(join(dir, 'log'), 'utf8').slice(-2000)}`)
    const client = new pg.Client({ connectionString: adminUrl })
    const up = await client.connect().then(() => true, () => false)
    await client.end().catch(() => {})
    if (up) break
    if (Date.now() > end) throw new Error('postgres did not accept connections within 30 s')
    await Bun.sleep(50)
  }
  let stopped = false
  const stop = () => {
    if (stopped) return
    stopped = true
    proc.kill('SIGQUIT') // immediate shutdown: nothing here is worth keeping
    for (const end = Date.now() + 10_000; proc.exitCode === null && alive(proc.pid) && Date.now() < end; ) Bun.sleepSync(20)
    rmSync(dir, { recursive: true, force: true })
  }
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
