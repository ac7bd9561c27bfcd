// The executable's commands, run as an operator runs them: a separate process on the same DATA_DIR.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { Database as Sqlite } from 'bun:sqlite'
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pkg from '../../package.json' with { type: 'json' }
import { startTestAppliance, type TestAppliance } from '../helpers/appliance.ts'
import { newId } from '../../src/platform/ids.ts'
import { seedCall } from '../helpers/call-records.ts'

const MAIN = join(import.meta.dir, '../../src/main.ts')

function cli(args: string[], env: Record<string, string> = {}) {
  const p = Bun.spawnSync([process.execPath, MAIN, ...args], { env: { PATH: process.env.PATH ?? '', ...env }, stdout: 'pipe', stderr: 'pipe' })
  return { code: p.exitCode, out: p.stdout.toString(), err: p.stderr.toString() }
}

let t: TestAppliance
const scratch = mkdtempSync(join(tmpdir(), 'cli-test-'))

beforeAll(async () => {
  t = await startTestAppliance()
})

afterAll(async () => {
  await t?.stop()
  rmSync(scratch, { recursive: true, force: true })
})

test('--version prints the package version and --help lists every command', () => {
  expect(cli(['--version'])).toMatchObject({ code: 0, out: `${pkg.version}\n` })
  const help = cli(['--help'])
  expect(help.code).toBe(0)
  for (const c of ['serve', 'backup FILE', 'restore FILE', 'create-api-key', 'check-config', 'recordings gc']) expect(help.out).toContain(c)
})

test('an unknown command is a usage error (exit 2) that shows the help', () => {
  const r = cli(['frobnicate'])
  expect(r.code).toBe(2)
  expect(r.err).toContain('unknown command frobnicate')
})

test('check-config prints the effective configuration with secrets masked', () => {
  const r = cli(['check-config'], { DATA_DIR: scratch, LLM_API_KEY: 'sk-very-secret', HTTP_PORT: '8099', VAD_ENGINE: 'energy' })
  expect(r.code, r.err).toBe(0)
  expect(r.out).toContain('HTTP_PORT=8099')
  expect(r.out).toContain('LLM_API_KEY=******')
  expect(r.out).not.toContain('sk-very-secret')
  expect(r.out).toContain('# LLM: openai')
})

test('check-config warns of a model with no price and refuses a price table it cannot read (exit 2)', () => {
  const env = { DATA_DIR: scratch, VAD_ENGINE: 'energy', LLM_BASE_URL: 'http://127.0.0.1:11434/v1', LLM_MODEL: 'llama3.2' }
  const r = cli(['check-config'], env)
  expect(r.code, r.err).toBe(0)
  expect(r.out).toContain('# warning: no price for LLM llama3.2: calls leave them out of their cost and name them in cost.unpriced')
  expect(cli(['check-config'], { ...env, VOICE_PRICE_TABLE: '{"llm": {"llama3.2": {"inputPerMTok": 0, "outputPerMTok": 0}}}' }).out).not.toContain('# warning: no price')
  const bad = cli(['check-config'], { ...env, VOICE_PRICE_TABLE: '{"stt": {"deepgram-stt": 0.0077}}' })
  expect(bad.code).toBe(2)
  expect(bad.err).toContain('VOICE_PRICE_TABLE: stt.deepgram-stt: no STT provider has that id; use one of deepgram, sherpa-onnx, pocketsphinx, openai')
})

test('check-config masks the S3 credentials of object-storage recordings and refuses s3 without a bucket', () => {
  const s3 = { DATA_DIR: scratch, VAD_ENGINE: 'energy', RECORDINGS_STORAGE: 's3', S3_ENDPOINT: 'http://127.0.0.1:9000', S3_ACCESS_KEY_ID: 'AKIAEXAMPLE', S3_SECRET_ACCESS_KEY: 'wJalrXUtnFEMI' }
  const ok = cli(['check-config'], { ...s3, S3_BUCKET: 'call-recordings' })
  expect(ok.code, ok.err).toBe(0)
  expect(ok.out).toContain('S3_BUCKET="call-recordings"')
  expect(ok.out).toContain('S3_SECRET_ACCESS_KEY=******')
  expect(ok.out).toContain('S3_ACCESS_KEY_ID=******')
  expect(ok.out).not.toContain('wJalrXUtnFEMI')
  const bad = cli(['check-config'], s3)
  expect(bad.code).toBe(2)
  expect(bad.err).toContain('S3_BUCKET')
})

test('check-config names the database: SQLite in DATA_DIR, or PostgreSQL with the URL password masked', () => {
  const lite = cli(['check-config'], { DATA_DIR: scratch, VAD_ENGINE: 'energy' })
  expect(lite.out).toContain(`# database: sqlite ${join(scratch, 'appliance.db')}`)
  const pg = cli(['check-config'], { DATA_DIR: scratch, VAD_ENGINE: 'energy', DATABASE_URL: 'postgres://voice:hunter2@db.internal:5432/voice' })
  expect(pg.code, pg.err).toBe(0)
  expect(pg.out).toContain('# database: postgres postgres://voice:***@db.internal:5432/voice')
  expect(pg.out).toContain('DATABASE_URL="postgres://voice:***@db.internal:5432/voice"')
  expect(pg.out).not.toContain('hunter2')
})

test('a DATABASE_URL that is not a postgres:// URL is a configuration error (exit 2)', () => {
  const r = cli(['check-config'], { DATA_DIR: scratch, VAD_ENGINE: 'energy', DATABASE_URL: 'mysql://db/voice' })
  expect(r.code).toBe(2)
  expect(r.err).toContain('DATABASE_URL must be a postgres://')
})

test('with DATABASE_URL, backup and restore refuse (exit 2) and point to pg_dump and pg_restore, writing nothing', () => {
  const env = { DATA_DIR: scratch, DATABASE_URL: 'postgres://voice@127.0.0.1:1/voice' }
  const b = cli(['backup', join(scratch, 'x.db')], env)
  expect(b.code).toBe(2)
  expect(b.err).toContain('pg_dump')
  const r = cli(['restore', join(scratch, 'x.db')], env)
  expect(r.code).toBe(2)
  expect(r.err).toContain('pg_restore')
  expect(() => statSync(join(scratch, 'x.db'))).toThrow()
})

test('check-config refuses a bad configuration with exit 2, naming the key', () => {
  const r = cli(['check-config'], { DATA_DIR: scratch, TTS_PROVIDER: 'elevenlabs', VAD_ENGINE: 'energy' })
  expect(r.code).toBe(2)
  expect(r.err).toContain('ELEVENLABS_API_KEY')
})

test('a backup taken while calls are being written restores to an intact database holding every row committed before it began', async () => {
  const db = t.appliance.database.db
  let writing = true
  let written = 0
  const writer = (async () => {
    while (writing) {
      const at = new Date().toISOString()
      await db.insertInto('calls').values({ id: newId('call'), workspace_id: t.workspaceId, agent_id: null, agent_name: null, phone_number_id: null, type: 'inbound', from_number: '+14155550100', to_number: '+14155550101', status: 'ended', outcome: 'completed', end_reason: 'caller_hangup', sip_call_id: null, recording_path: null, created_at: at, started_at: at, answered_at: at, ended_at: at }).execute()
      written++
      await Bun.sleep(0)
    }
  })()
  while (written < 200) await Bun.sleep(1)
  const before = written
  const file = join(scratch, 'backup.db')
  const proc = Bun.spawn([process.execPath, MAIN, 'backup', file], { env: { PATH: process.env.PATH ?? '', DATA_DIR: t.dataDir }, stdout: 'pipe', stderr: 'pipe' })
  const code = await proc.exited
  writing = false
  await writer
  expect(code, await new Response(proc.stderr).text()).toBe(0)
  expect(await new Response(proc.stdout).text()).toContain('recordings are not included')
  expect(statSync(file).mode & 0o777).toBe(0o600)

  const fresh = join(scratch, 'restored')
  const r = cli(['restore', file], { DATA_DIR: fresh })
  expect(r.code, r.err).toBe(0)
  const restored = new Sqlite(join(fresh, 'appliance.db'), { readonly: true })
  try {
    expect(restored.query('PRAGMA integrity_check').get()).toEqual({ integrity_check: 'ok' })
    const n = (restored.query('SELECT count(*) AS n FROM calls').get() as { n: number }).n
    expect(n).toBeGreaterThanOrEqual(before)
    expect(n).toBeLessThanOrEqual(written)
    expect(restored.query("SELECT name FROM sqlite_master WHERE name = 'appliance_backup'").get()).toBeNull()
  } finally {
    restored.close()
  }
  expect(readFileSync(join(fresh, 'secret.key'), 'utf8')).toBe(readFileSync(join(t.dataDir, 'secret.key'), 'utf8'))
}, 30_000)

test('restore is refused with exit 3 while an appliance uses DATA_DIR, and changes nothing', () => {
  const file = join(scratch, 'refused.db')
  expect(cli(['backup', file], { DATA_DIR: t.dataDir }).code).toBe(0)
  const dbBefore = statSync(join(t.dataDir, 'appliance.db')).ino
  const r = cli(['restore', file], { DATA_DIR: t.dataDir })
  expect(r.code).toBe(3)
  expect(r.err).toContain('another appliance process is already using DATA_DIR')
  expect(statSync(join(t.dataDir, 'appliance.db')).ino).toBe(dbBefore)
})

test('restore refuses a file that is not a backup', () => {
  const bogus = join(scratch, 'bogus.db')
  Bun.write(bogus, 'not a database at all')
  const r = cli(['restore', bogus], { DATA_DIR: join(scratch, 'other') })
  expect(r.code).toBe(1)
  expect(r.err).toMatch(/not a readable SQLite backup|not a backup/)
})

test('create-api-key prints a key of the workspace admin that the running appliance accepts', async () => {
  const r = cli(['create-api-key', '--workspace', t.workspaceId, '--name', 'recovered'], { DATA_DIR: t.dataDir })
  expect(r.code, r.err).toBe(0)
  const key = r.out.trim()
  expect(key).toStartWith('vak_')
  const list = await t.api('GET', '/api/workspaces', { key })
  expect(list.status).toBe(200)
  expect(list.body.workspaces[0].id).toBe(t.workspaceId)
})

test('create-api-key for an unknown workspace fails and lists the workspaces', () => {
  const r = cli(['create-api-key', '--workspace', 'ws_nope'], { DATA_DIR: t.dataDir })
  expect(r.code).toBe(1)
  expect(r.err).toContain(t.workspaceId)
})

test('recordings gc --dry-run lists the recordings no call record points at, then their count, on stdout; without it removes them, and only them', async () => {
  const db = t.appliance.database.db
  const dir = join(t.dataDir, 'recordings')
  const env = { DATA_DIR: t.dataDir, ...(t.appliance.config.DATABASE_URL ? { DATABASE_URL: t.appliance.config.DATABASE_URL } : {}) }
  const kept = await seedCall(db, { workspaceId: t.workspaceId, recordingIn: t.dataDir })
  const live = await seedCall(db, { workspaceId: t.workspaceId, status: 'in_progress', recordingIn: t.dataDir })
  const orphan = await seedCall(db, { workspaceId: t.workspaceId, recordingIn: t.dataDir })
  expect((await t.api('DELETE', `/api/calls/${orphan}`)).status).toBe(200) // the file stays, as the API contract says
  writeFileSync(join(dir, 'notes.txt'), 'not a recording')
  // .wav files whose names are not call ids are the operator's, whatever they hold
  for (const name of ['notacall.wav', 'call_short.wav', 'CALL_01M993Z1WZ00002JJGWNDZ34XA.wav']) writeFileSync(join(dir, name), 'RIFF')

  const dry = cli(['recordings', 'gc', '--dry-run'], env)
  expect(dry.code, dry.err).toBe(0)
  expect(dry.out).toBe(`${join(dir, `${orphan}.wav`)}\n# 1 recordings without a call record (dry run: nothing removed)\n`)
  expect(dry.err).toBe('')
  expect(existsSync(join(dir, `${orphan}.wav`))).toBe(true)

  const gc = cli(['recordings', 'gc'], env)
  expect(gc.code, gc.err).toBe(0)
  expect(gc.out).toBe(`${join(dir, `${orphan}.wav`)}\n# removed 1 recordings without a call record\n`)
  for (const name of ['notacall.wav', 'call_short.wav', 'CALL_01M993Z1WZ00002JJGWNDZ34XA.wav', 'notes.txt']) expect({ name, there: existsSync(join(dir, name)) }).toEqual({ name, there: true })
  expect(existsSync(join(dir, `${orphan}.wav`))).toBe(false)
  for (const f of [`${kept}.wav`, `${live}.wav`, 'notes.txt']) expect({ f, there: existsSync(join(dir, f)) }).toEqual({ f, there: true })
  expect(cli(['recordings', 'gc', '--dry-run'], env).out).toBe('# 0 recordings without a call record (dry run: nothing removed)\n')
  expect(cli(['recordings', 'sweep'], env).code).toBe(2)
  expect(cli(['recordings', 'gc'], { DATA_DIR: join(scratch, 'empty') }).code).toBe(1) // no database: every file would look orphaned
})
