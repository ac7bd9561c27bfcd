// The compiled executable's errors, where they differ from `bun run`: Bun's report of an uncaught
// error quotes the source around it, which here is a line of the minified bundle (kilobytes).
// Every failure of a command or of serve is one line on stderr instead.
import { beforeAll, expect, test } from 'bun:test'
import { existsSync, mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { buildExecutable, execExecutable } from '../../helpers/executable.ts'
import { tempDir } from '../../helpers/tmp.ts'

beforeAll(() => {
  buildExecutable()
}, 240_000)

const LOCAL = { HTTP_HOST: '127.0.0.1', HTTP_PORT: '0', SIP_HOST: '127.0.0.1', SIP_PORT: '0', SIP_TLS_PORT: '0', PUBLIC_HOST: '127.0.0.1', VAD_ENGINE: 'energy', STT_PROVIDER: 'none', LLM_PROVIDER: 'none' }

function oneLine(r: { exitCode: number; stdout: string; stderr: string }, exitCode: number, line: string) {
  expect({ exitCode: r.exitCode, stdout: r.stdout, stderr: r.stderr }).toEqual({ exitCode, stdout: '', stderr: `${line}\n` })
}

test('a database file that is not SQLite: a command and serve each say so in one line and exit 1', () => {
  const dataDir = join(tempDir('exe-damaged-'), 'data')
  mkdirSync(dataDir)
  writeFileSync(join(dataDir, 'appliance.db'), 'not a database, but the file is there')
  oneLine(execExecutable(['workspaces'], { DATA_DIR: dataDir }), 1, 'error: file is not a database')
  // serve's log (stdout) is quiet at warn: the failure is stderr's one line
  oneLine(execExecutable([], { ...LOCAL, LOG_LEVEL: 'warn', DATA_DIR: dataDir }), 1, 'error: file is not a database')
}, 30_000)

test('a configuration that check-config refuses, serve refuses alike, with one line, exit 2 and no DATA_DIR', () => {
  const dataDir = join(tempDir('exe-config-'), 'data')
  for (const [args, env, line] of [
    [['check-config'], { LOG_LEVEL: 'verbose' }, 'configuration error: LOG_LEVEL must be one of trace, debug, info, warn, error, fatal, silent, got verbose'],
    [[], { MEDIA_CODECS: 'G729' }, 'configuration error: MEDIA_CODECS: unknown codec "G729" (known: PCMU, PCMA, opus)'],
    [[], { SIP_TLS_CERT_FILE: '/nonexistent.pem', SIP_TLS_KEY_FILE: '/nonexistent.pem' }, 'configuration error: SIP_TLS_CERT_FILE: cannot read /nonexistent.pem (ENOENT)'],
  ] as const) {
    oneLine(execExecutable([...args], { ...LOCAL, ...env, DATA_DIR: dataDir }), 2, line)
  }
  expect(existsSync(dataDir)).toBe(false)
}, 30_000)

test('backup to a folder that does not exist is one line, without the SQLite caret line', () => {
  const dataDir = join(tempDir('exe-backup-'), 'data')
  mkdirSync(dataDir)
  writeFileSync(join(dataDir, 'appliance.db'), '')
  oneLine(execExecutable(['backup', '/missing/dir/x.db'], { DATA_DIR: dataDir }), 1, 'cannot write /missing/dir/x.db: there is no folder /missing/dir')
}, 30_000)
