// Every command once succeeding and once failing, as an operator's script sees it: results on
// stdout, diagnostics and errors on stderr, an error always one line (no stack, no SQLite caret
// line, no help text), and the exit code of the help's table.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import pkg from '../../package.json' with { type: 'json' }
import { startTestAppliance, type TestAppliance } from '../helpers/appliance.ts'
import { tempDir } from '../helpers/tmp.ts'

const MAIN = join(import.meta.dir, '../../src/main.ts')

async function cli(args: string[], env: Record<string, string> = {}) {
  const p = Bun.spawn([process.execPath, MAIN, ...args], { env: { PATH: process.env.PATH ?? '', VAD_ENGINE: 'energy', ...env }, stdout: 'pipe', stderr: 'pipe' })
  const [out, err, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited])
  return { code, out, err }
}

/** A failure as a script sees it: the exit code, nothing on stdout, and one line on stderr. */
function failed(r: { code: number; out: string; err: string }, code: number, line: string | RegExp) {
  expect({ code: r.code, out: r.out, lines: r.err.split('\n').length - 1 }).toEqual({ code, out: '', lines: 1 })
  if (typeof line === 'string') expect(r.err).toBe(`${line}\n`)
  else expect(r.err).toMatch(line)
}

let t: TestAppliance
let env: Record<string, string>
const scratch = tempDir('cli-streams-')

beforeAll(async () => {
  t = await startTestAppliance()
  env = { DATA_DIR: t.dataDir }
})

afterAll(async () => {
  await t?.stop()
})

describe('each command: results on stdout, an error as one line on stderr', () => {
  test('--version and --help print to stdout; an unknown command is one line naming --help, exit 2', async () => {
    expect(await cli(['--version'])).toEqual({ code: 0, out: `${pkg.version}\n`, err: '' })
    const help = await cli(['--help'])
    expect([help.code, help.err, help.out.includes('Exit codes:')]).toEqual([0, '', true])
    failed(await cli(['frobnicate']), 2, 'unknown command frobnicate; voice-agent --help lists the commands')
  })

  test('check-config prints the configuration on stdout; a bad key is one line on stderr, exit 2', async () => {
    const ok = await cli(['check-config'], { DATA_DIR: join(scratch, 'checked') })
    expect([ok.code, ok.err]).toEqual([0, ''])
    expect(ok.out).toStartWith('configuration is valid\n')
    expect(ok.out).toContain('LOG_LEVEL="info"\n')
    failed(await cli(['check-config'], { DATA_DIR: join(scratch, 'checked'), LOG_LEVEL: 'verbose' }), 2, /^configuration error: LOG_LEVEL must be one of /)
  })

  test('backup reports on stdout; a folder that does not exist is one line, exit 1, instead of a SQLiteError with a caret line', async () => {
    const file = join(scratch, 'backup.db')
    const ok = await cli(['backup', file], env)
    expect([ok.code, ok.err]).toEqual([0, ''])
    expect(ok.out).toMatch(/^backup written to .* calls\); recordings are not included\n$/)
    const missing = join(scratch, 'missing', 'dir', 'x.db')
    failed(await cli(['backup', missing], env), 1, `cannot write ${missing}: there is no folder ${join(scratch, 'missing', 'dir')}`)
    failed(await cli(['backup'], env), 2, 'usage: voice-agent backup FILE')
  })

  test('restore reports on stdout; a file that is not a backup is one line, exit 1', async () => {
    const file = join(scratch, 'to-restore.db')
    expect((await cli(['backup', file], env)).code).toBe(0)
    const ok = await cli(['restore', file], { DATA_DIR: join(scratch, 'restored') })
    expect([ok.code, ok.err]).toEqual([0, ''])
    expect(ok.out).toContain('the replaced files end in .before-restore\n')
    const bogus = join(scratch, 'bogus.db')
    writeFileSync(bogus, 'not a database at all')
    failed(await cli(['restore', bogus], { DATA_DIR: join(scratch, 'other') }), 1, /^.*bogus\.db is not a readable SQLite backup: .*\n$/)
  })

  test('create-api-key prints the key alone on stdout (its note on stderr); an unknown workspace is one line, exit 1', async () => {
    const ok = await cli(['create-api-key', '--workspace', t.workspaceId], env)
    expect(ok.code).toBe(0)
    expect(ok.out).toMatch(/^vak_\S+\n$/)
    expect(ok.err).toBe(`new API key for admin@localhost in ${t.workspaceId}; it is shown once:\n`)
    failed(await cli(['create-api-key', '--workspace', 'ws_nope'], env), 1, `no workspace ws_nope; workspaces: ${t.workspaceId} (Default)`)
  })

  test('workspaces lists on stdout; extra words are a one-line usage error, exit 2', async () => {
    expect(await cli(['workspaces'], env)).toEqual({ code: 0, out: `${t.workspaceId}\tDefault\n`, err: '' })
    failed(await cli(['workspaces', 'extra'], env), 2, 'usage: voice-agent workspaces')
  })

  test('health answers on stdout; a bad --url is one line, exit 2', async () => {
    const ok = await cli(['health', '--url', `${t.url}/health`])
    expect(ok).toEqual({ code: 0, out: `ok: ${t.url}/health answered 200\n`, err: '' })
    failed(await cli(['health', '--url', 'ftp://x']), 2, '--url must be an http(s) URL; usage: voice-agent health [--url URL]')
  })

  test('recordings gc lists and counts on stdout, the count as a # line; a bad option is one line, exit 2', async () => {
    const dry = await cli(['recordings', 'gc', '--dry-run'], env)
    expect(dry).toEqual({ code: 0, out: '# 0 recordings without a call record (dry run: nothing removed)\n', err: '' })
    failed(await cli(['recordings', 'gc', '--older-than-days', 'x'], env), 2, '--older-than-days takes a whole number of days; usage: voice-agent recordings gc [--dry-run] [--older-than-days N]')
    failed(await cli(['recordings', 'gc', '--frobnicate'], env), 2, /^Unknown option '--frobnicate'.*; usage: voice-agent recordings gc /)
  })
})

test('an error no command expected (a database file that is not SQLite) is one line and exit code 1, for a command and for serve', async () => {
  const dataDir = join(scratch, 'damaged')
  mkdirSync(dataDir)
  writeFileSync(join(dataDir, 'appliance.db'), 'not a database, but the file is there')
  failed(await cli(['workspaces'], { DATA_DIR: dataDir }), 1, 'error: file is not a database')
  const local = { HTTP_HOST: '127.0.0.1', HTTP_PORT: '0', SIP_HOST: '127.0.0.1', SIP_PORT: '0', SIP_TLS_PORT: '0', PUBLIC_HOST: '127.0.0.1', STT_PROVIDER: 'none', LLM_PROVIDER: 'none', LOG_LEVEL: 'silent' }
  failed(await cli([], { ...local, DATA_DIR: dataDir }), 1, 'error: file is not a database')
  // the details go to the log, at debug: for serve its log on stdout
  const detailed = await cli([], { ...local, DATA_DIR: dataDir, LOG_LEVEL: 'debug' })
  expect([detailed.code, detailed.err]).toEqual([1, 'error: file is not a database\n'])
  const line = detailed.out.split('\n').filter(Boolean).map((l) => JSON.parse(l)).find((l) => l.msg === 'unexpected failure')
  expect(line).toMatchObject({ level: 20, err: { message: 'file is not a database' } })
  expect(line.err.stack).toContain('prepareDatabase')
})

test.each([
  ['an exception thrown from a timer', "setTimeout(() => { throw new Error('thrown late\\n    at somewhere (bundle:1:2)') }, 0)", 'error: thrown late; at somewhere (bundle:1:2)'],
  ['a rejection nobody handles', "void Promise.reject(new Error('rejected late'))", 'error: rejected late'],
  ['a thrown value that is no Error', "setTimeout(() => { throw 'a bare string' }, 0)", 'error: a bare string'],
])('once installed as main.ts does, %s ends the process with one line and exit code 1', async (_, fault, line) => {
  const script = join(scratch, `uncaught-${Math.random().toString(36).slice(2)}.ts`)
  writeFileSync(script, `import { exitOnUncaught, failureLog } from ${JSON.stringify(join(import.meta.dir, '../../src/app/cli/failure.ts'))}\nexitOnUncaught(() => failureLog())\n${fault}\n`)
  const p = Bun.spawn([process.execPath, script], { env: { PATH: process.env.PATH ?? '' }, stdout: 'pipe', stderr: 'pipe' })
  const [out, err, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited])
  failed({ code, out, err }, 1, line)
})
