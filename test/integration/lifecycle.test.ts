import { describe, expect, test } from 'bun:test'
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { startTestAppliance } from '../helpers/appliance.ts'

const root = join(import.meta.dir, '..', '..')

/** Runs `npm start`'s entry point as a real second process and collects its exit. */
async function runMain(dataDir: string) {
  const proc = Bun.spawn([process.execPath, 'src/main.ts'], {
    cwd: root,
    env: { ...process.env, DATA_DIR: dataDir, HTTP_PORT: '0', HTTP_HOST: '127.0.0.1', LOG_LEVEL: 'silent' },
    stdout: 'pipe',
    stderr: 'pipe',
  })
  const timer = setTimeout(() => proc.kill(), 15_000)
  const code = await proc.exited
  clearTimeout(timer)
  return { code, stderr: await new Response(proc.stderr).text() }
}

describe('appliance lifecycle', () => {
  test('a second process on the same DATA_DIR refuses to start with a clear message and exit code 3', async () => {
    const t = await startTestAppliance()
    try {
      const second = await runMain(t.dataDir)
      expect(second.code).toBe(3)
      expect(second.stderr).toContain('another appliance process is already using DATA_DIR')
      // The first process is unharmed.
      expect((await t.api('GET', `/api/workspaces/${t.workspaceId}`)).status).toBe(200)
    } finally {
      await t.stop()
    }
  })

  test('a bad configuration value stops start-up with exit code 2', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'appliance-cfg-'))
    try {
      const proc = Bun.spawn([process.execPath, 'src/main.ts'], {
        cwd: root,
        env: { ...process.env, DATA_DIR: dir, HTTP_PORT: 'eighty', LOG_LEVEL: 'silent' },
        stderr: 'pipe',
      })
      expect(await proc.exited).toBe(2)
      expect(await new Response(proc.stderr).text()).toContain('HTTP_PORT')
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  test('the first start writes the admin key with mode 0600; a restart keeps all data and makes no second key', async () => {
    const first = await startTestAppliance()
    const dir = first.dataDir
    const keyFile = join(dir, 'admin-api-key')
    expect(statSync(keyFile).mode & 0o777).toBe(0o600)
    await first.api('PATCH', `/api/workspaces/${first.workspaceId}`, { body: { name: 'Persisted' } })
    await first.api('POST', `/api/workspaces/${first.workspaceId}/members`, { body: { email: 'kept@example.com', role: 'admin' } })
    const extra = await first.api('POST', `/api/workspaces/${first.workspaceId}/api-keys`, { body: { name: 'kept key' } })
    const keyBefore = readFileSync(keyFile, 'utf8')
    await first.stop({ keepData: true })

    const second = await startTestAppliance({}, dir)
    try {
      expect(readFileSync(keyFile, 'utf8')).toBe(keyBefore)
      expect(second.workspaceId).toBe(first.workspaceId)
      const ws = await second.api('GET', `/api/workspaces/${first.workspaceId}`)
      expect(ws.body.workspace.name).toBe('Persisted')
      const members = await second.api('GET', `/api/workspaces/${first.workspaceId}/members`)
      expect(members.body.members.map((m: { email: string }) => m.email)).toContain('kept@example.com')
      const list = await second.api('GET', '/api/workspaces')
      expect(list.body.workspaces.length).toBe(1)
      const keys = await second.api('GET', `/api/workspaces/${first.workspaceId}/api-keys`)
      expect(keys.body.apiKeys.map((k: { name: string }) => k.name).sort()).toEqual(['bootstrap admin key', 'kept key'])
      const viaKept = await second.api('GET', `/api/workspaces/${first.workspaceId}`, { key: extra.body.apiKey.key })
      expect(viaKept.status).toBe(200)
    } finally {
      await second.stop()
    }
  })

  test('after a stop the same DATA_DIR can be started again (the lock is released)', async () => {
    const a = await startTestAppliance()
    await a.stop({ keepData: true })
    const b = await startTestAppliance({}, a.dataDir)
    expect((await b.api('GET', '/health', { key: null })).status).toBe(200)
    await b.stop()
  })
})
