// `voice-agent workspaces` and `create-api-key` without --workspace, run as an operator runs them:
// a separate process on the running appliance's DATA_DIR.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { join } from 'node:path'
import { startTestAppliance, type TestAppliance } from '../helpers/appliance.ts'

const MAIN = join(import.meta.dir, '../../src/main.ts')

function cli(args: string[], env: Record<string, string> = {}) {
  const p = Bun.spawnSync([process.execPath, MAIN, ...args], { env: { PATH: process.env.PATH ?? '', ...env }, stdout: 'pipe', stderr: 'pipe' })
  return { code: p.exitCode, out: p.stdout.toString(), err: p.stderr.toString() }
}

let t: TestAppliance
beforeAll(async () => {
  t = await startTestAppliance()
})
afterAll(async () => {
  await t?.stop()
})

// the tests run in order: one workspace first, then a second one is created
test('with one workspace, create-api-key needs no --workspace and prints a key of its admin', async () => {
  const r = cli(['create-api-key'], { DATA_DIR: t.dataDir })
  expect(r.code, r.err).toBe(0)
  expect(r.err).toContain(t.workspaceId)
  const key = r.out.trim()
  expect(key).toStartWith('vak_')
  const me = await t.api('GET', '/api/workspaces', { key })
  expect(me.status).toBe(200)
  expect(me.body.workspaces.map((w: { id: string; role: string }) => [w.id, w.role])).toEqual([[t.workspaceId, 'admin']])
})

test('workspaces lists each workspace as id, a tab and the name, oldest first', async () => {
  expect(cli(['workspaces'], { DATA_DIR: t.dataDir })).toEqual({ code: 0, out: `${t.workspaceId}\tDefault\n`, err: '' })
  const second = await t.api('POST', '/api/workspaces', { body: { name: 'Second shop' } })
  expect(second.status).toBe(200)
  const r = cli(['workspaces'], { DATA_DIR: t.dataDir })
  expect(r.code, r.err).toBe(0)
  expect(r.out).toBe(`${t.workspaceId}\tDefault\n${second.body.workspace.id}\tSecond shop\n`)
  expect(cli(['workspaces', 'extra'], { DATA_DIR: t.dataDir }).code).toBe(2)
})

test('with several workspaces, create-api-key without --workspace exits 2 naming them in one line and creates no key', async () => {
  const before = await t.api('GET', `/api/workspaces/${t.workspaceId}/api-keys?limit=100`)
  const r = cli(['create-api-key'], { DATA_DIR: t.dataDir })
  expect(r.code).toBe(2)
  expect(r.out).toBe('')
  expect(r.err).toContain('--workspace')
  // one line naming them all, as every error is
  expect(r.err).toMatch(new RegExp(`^there are several workspaces; name one with --workspace ID: ${t.workspaceId} \\(Default\\), ws_\\w+ \\(Second shop\\) \\(voice-agent workspaces lists them all\\)\\n$`))
  const after = await t.api('GET', `/api/workspaces/${t.workspaceId}/api-keys?limit=100`)
  expect(after.body.apiKeys.length).toBe(before.body.apiKeys.length)
  const named = cli(['create-api-key', '--workspace', t.workspaceId], { DATA_DIR: t.dataDir })
  expect(named.code, named.err).toBe(0)
  expect(named.out.trim()).toStartWith('vak_')
})

test('--help shows workspaces and an optional --workspace', () => {
  const help = cli(['--help']).out
  expect(help).toContain('voice-agent workspaces')
  expect(help).toContain('create-api-key [--workspace ID]')
})
