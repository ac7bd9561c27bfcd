// The executable's commands besides serving. Each returns an exit code; serving is main.ts's.
import { parseArgs } from 'node:util'
import pkg from '../../../package.json' with { type: 'json' }
import { CONFIG_KEYS, type Config, ConfigError } from '../../platform/config/index.ts'
import { type Db, DataDirLockedError, describeDatabase, maskDatabaseUrl, openConfigured, sqliteFileOf } from '../../platform/db/index.ts'
import { createVoiceEngines } from '../../realtime/voice/index.ts'
import { priceTableFor } from '../../realtime/voice/registry/index.ts'
import { loadCheckedConfig, NAT_ADVICE, publicHostWarning, resolvePublicHost, unpricedWarning } from '../startup/index.ts'
import { AdminKeyError, createAdminKey } from './admin-key.ts'
import { backup, BackupError, restore } from './backup.ts'
import { capacityCommand, CapacityUsageError, CapacityWriteError } from './capacity/index.ts'
import { recordingsCommand, RecordingsUsageError } from './recordings.ts'
import { oneLine } from './failure.ts'
import { checkHealth, healthUrl } from './health.ts'
import { apiBase, testAgent, TestAgentError } from './test-agent.ts'
import { formatWorkspaces, listWorkspaces, NoWorkspaceError, soleWorkspace, WhichWorkspaceError } from './workspaces.ts'

export const VERSION: string = pkg.version

export const HELP = `voice-agent ${VERSION}: AI voice agents that answer and place phone calls over SIP

Usage:
  voice-agent [serve]                 run the appliance (configuration from the environment
                                      and CONFIG_FILE; see docs/configuration.md)
  voice-agent backup FILE             write a consistent copy of DATA_DIR's database and secret
                                      key to FILE, also while the appliance runs (recordings are
                                      not included: copy DATA_DIR/recordings yourself); SQLite
                                      only: with DATABASE_URL use pg_dump
  voice-agent restore FILE            replace DATA_DIR's database and secret key with a backup's;
                                      refused while an appliance uses DATA_DIR; SQLite only: with
                                      DATABASE_URL use pg_restore
  voice-agent create-api-key [--workspace ID] [--name NAME] [--email EMAIL]
                                      print a new API key of the workspace's (first) admin;
                                      --workspace may be left out when there is one workspace
  voice-agent workspaces              list the workspaces: id, a tab, the name; oldest first
  voice-agent health [--url URL]      GET /health of the appliance of this configuration
                                      (HTTP_HOST, HTTP_PORT): exit 0 on 200, else 1
  voice-agent check-config            validate the configuration as a start does (the files it
                                      names too) and print it, secrets masked
  voice-agent recordings gc [--dry-run] [--older-than-days N]
                                      list the recordings no call record points at (on this
                                      node's disk and in S3_BUCKET) and remove them; --dry-run
                                      only lists them; a last line "# N ..." counts them
  voice-agent test-agent ID [--url URL] [--draft] [--timeout-sec N]
                                      run the agent's test cases as test calls on the appliance
                                      (API key in VOICE_AGENT_API_KEY); a line per case, exit 0
                                      when all passed, 1 when one failed (docs/agent-tests.md)
  voice-agent capacity [--quick] [--write] [--max N]
                                      measure the calls at once this machine carries within the
                                      timing goals, per kind of call (offline engines, in this
                                      process, no network); a table on stdout; --write puts
                                      CALLS_MAX into the config file (docs/operations.md)
  voice-agent --version | --help

Results go to stdout; notes and errors to stderr, each error one line.
Exit codes: 0 done, 1 failure, 2 bad configuration or usage, 3 DATA_DIR (or NODE_ID) in use.`

type Out = { out(line: string): void; err(line: string): void }
const stdio: Out = { out: (l) => process.stdout.write(`${l}\n`), err: (l) => process.stderr.write(`${l}\n`) }

/**
 * Runs a command; `serve` means main.ts should start the appliance. Results go to stdout, notes
 * and errors to stderr, each error on one line; an error not handled here is main.ts's.
 */
export async function runCli(argv: string[], env: Record<string, string | undefined> = process.env, io: Out = stdio): Promise<number | 'serve'> {
  const [command, ...rest] = argv
  try {
    switch (command) {
      case undefined:
      case 'serve':
        return 'serve'
      case '--version':
      case '-v':
      case 'version':
        io.out(VERSION)
        return 0
      case '--help':
      case '-h':
      case 'help':
        io.out(HELP)
        return 0
      case 'check-config':
        return await checkConfig(await loadCheckedConfig(env), io)
      case 'backup': {
        const file = oneFile(rest, 'backup')
        const cfg = await loadCheckedConfig(env)
        if (!sqliteFileOf(cfg)) return fail(io, 2, `${NOT_FOR_POSTGRES} pg_dump --format=custom --file=FILE "$DATABASE_URL" (then copy DATA_DIR/secret.key with it)`)
        const r = backup(cfg.DATA_DIR, file)
        io.out(`backup written to ${r.file} (${r.bytes} bytes, ${r.calls} calls); recordings are not included`)
        return 0
      }
      case 'restore': {
        const file = oneFile(rest, 'restore')
        const cfg = await loadCheckedConfig(env)
        if (!sqliteFileOf(cfg)) return fail(io, 2, `${NOT_FOR_POSTGRES} pg_restore --clean --if-exists --dbname="$DATABASE_URL" FILE (with every node stopped)`)
        const dataDir = cfg.DATA_DIR
        const r = restore(dataDir, file)
        io.out(`restored ${dataDir} from the backup of ${r.createdAt}; the replaced files end in .before-restore`)
        return 0
      }
      case 'create-api-key':
        return await adminKey(rest, await loadCheckedConfig(env), io)
      case 'health': {
        const url = healthArgs(rest) ?? healthUrl(await loadCheckedConfig(env))
        const r = await checkHealth(url)
        if (r.ok) io.out(r.line)
        else io.err(r.line)
        return r.ok ? 0 : 1
      }
      case 'workspaces':
        if (rest.length) throw new UsageError('usage: voice-agent workspaces')
        return await withDb(await loadCheckedConfig(env), async (db) => {
          for (const line of formatWorkspaces(await listWorkspaces(db))) io.out(line)
          return 0
        })
      case 'recordings':
        return await recordingsCommand(rest, await loadCheckedConfig(env), io)
      case 'test-agent':
        return await testAgentCommand(rest, env, io)
      case 'capacity':
        return await capacityCommand(rest, env, io)
      default:
        return fail(io, 2, `unknown command ${command}; voice-agent --help lists the commands`)
    }
  } catch (err) {
    if (err instanceof ConfigError) return fail(io, 2, `configuration error: ${err.message}`)
    if (err instanceof UsageError || err instanceof RecordingsUsageError || err instanceof CapacityUsageError || err instanceof WhichWorkspaceError) return fail(io, 2, err.message)
    if (err instanceof DataDirLockedError) return fail(io, 3, `refusing: ${err.message}; stop it first`)
    if (err instanceof BackupError || err instanceof AdminKeyError || err instanceof NoWorkspaceError || err instanceof TestAgentError || err instanceof CapacityWriteError) return fail(io, 1, err.message)
    throw err
  }
}

class UsageError extends Error {}

const NOT_FOR_POSTGRES = 'backup and restore are for the SQLite database in DATA_DIR; with DATABASE_URL the state is in PostgreSQL, use its tools:'

function fail(io: Out, code: number, message: string): number {
  io.err(oneLine(message))
  return code
}

function oneFile(args: string[], command: string): string {
  if (args.length !== 1 || args[0]!.startsWith('-')) throw new UsageError(`usage: voice-agent ${command} FILE`)
  return args[0]!
}

const SECRET = /KEY|TOKEN|SECRET|PASSWORD/

/** Loads the configuration and the voice engines it names (as a start would), then prints both. */
async function checkConfig(cfg: Config, io: Out): Promise<number> {
  const prices = priceTableFor(cfg)
  const engines = await createVoiceEngines(cfg)
  const problems = engines.problems()
  await engines.close()
  io.out(problems.length ? `configuration is valid, but degraded: ${problems.join('; ')}` : 'configuration is valid')
  for (const note of engines.notes) io.out(`# ${note}`)
  const unpriced = unpricedWarning(prices, engines, [])
  if (unpriced) io.out(`# warning: ${unpriced}`)
  const advertised = await resolvePublicHost(cfg)
  const warning = publicHostWarning(advertised.host, cfg.SIP_HOST)
  const how = advertised.source === 'configured' ? 'as configured' : `PUBLIC_HOST unset: ${advertised.source === 'default route' ? 'the address of the default route' : 'no default route found'}`
  io.out(`# SIP peers are told to reach this appliance at ${advertised.host} (${how}); ${NAT_ADVICE}`)
  if (warning) io.out(`# warning: ${warning}`)
  io.out(`# database: ${describeDatabase(cfg)}`)
  for (const key of Object.keys(CONFIG_KEYS) as (keyof Config)[]) {
    const value = String(cfg[key])
    const masked = key === 'DATABASE_URL' && value !== '' ? JSON.stringify(maskDatabaseUrl(value)) : '******'
    const shown = (SECRET.test(key) || key === 'DATABASE_URL') && value !== '' ? masked : JSON.stringify(cfg[key])
    io.out(`${key}=${shown}`)
  }
  return 0
}

async function adminKey(args: string[], cfg: Config, io: Out): Promise<number> {
  let values
  try {
    values = parseArgs({ args, options: { workspace: { type: 'string' }, name: { type: 'string' }, email: { type: 'string' } }, strict: true }).values
  } catch (err) {
    throw new UsageError((err as Error).message)
  }
  if (values.workspace === '') throw new UsageError('usage: voice-agent create-api-key [--workspace ID] [--name NAME] [--email EMAIL]')
  return withDb(cfg, async (db) => {
    const workspace = values.workspace ?? (await soleWorkspace(db))
    const r = await createAdminKey(db, workspace, values.name ?? 'created by voice-agent create-api-key', values.email)
    io.err(`new API key for ${r.userEmail} in ${workspace}; it is shown once:`)
    io.out(r.key)
    return 0
  })
}

function healthArgs(args: string[]): string | undefined {
  try {
    const url = parseArgs({ args, options: { url: { type: 'string' } }, strict: true }).values.url
    if (url !== undefined && !/^https?:\/\/[^/]/.test(url)) throw new Error('--url must be an http(s) URL')
    return url
  } catch (err) {
    throw new UsageError(`${(err as Error).message}; usage: voice-agent health [--url URL]`)
  }
}

async function testAgentCommand(args: string[], env: Record<string, string | undefined>, io: Out): Promise<number> {
  const usage = 'usage: voice-agent test-agent ID [--url URL] [--draft] [--timeout-sec N]'
  let parsed
  try {
    parsed = parseArgs({ args, allowPositionals: true, options: { url: { type: 'string' }, draft: { type: 'boolean' }, 'timeout-sec': { type: 'string' } }, strict: true })
  } catch (err) {
    throw new UsageError(`${(err as Error).message}; ${usage}`)
  }
  const { positionals, values } = parsed
  if (positionals.length !== 1) throw new UsageError(usage)
  const timeoutSec = values['timeout-sec'] === undefined ? 1800 : Number(values['timeout-sec'])
  if (!Number.isInteger(timeoutSec) || timeoutSec < 1) throw new UsageError(`--timeout-sec must be a whole number of seconds; ${usage}`)
  const key = env.VOICE_AGENT_API_KEY
  if (!key) throw new UsageError('set VOICE_AGENT_API_KEY to an API key of the agent\'s workspace')
  const url = values.url ?? apiBase(await loadCheckedConfig(env))
  return testAgent({ agentId: positionals[0]!, key, url, version: values.draft ? 'draft' : undefined, timeoutMs: timeoutSec * 1000 }, io)
}

async function withDb(cfg: Config, work: (db: Db) => Promise<number>): Promise<number> {
  const handle = openConfigured(cfg, 1)
  try {
    return await work(handle.db)
  } finally {
    await handle.close()
  }
}
