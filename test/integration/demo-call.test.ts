// `npm run demo:call` as a newcomer runs it: the whole appliance, baresip calling it, and a
// printout that says where the agent's replies come from and leaves nothing pointing at an
// appliance that has stopped by the time it is read.
import { expect } from 'bun:test'
import { existsSync, mkdtempSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { testNeedingPackage } from '../helpers/debian.ts'

const withBaresip = testNeedingPackage('baresip', Bun.which('baresip') !== null)

withBaresip('demo:call says its replies come from a scripted stand-in model, keeps the recording in the folder it runs in, and prints no link to the stopped appliance', async () => {
  const cwd = mkdtempSync(join(tmpdir(), 'demo-call-'))
  const env: Record<string, string> = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/tmp' }
  const proc = Bun.spawn([process.execPath, join(import.meta.dir, '../../scripts/demo-call.ts')], { cwd, env, stdout: 'pipe', stderr: 'pipe' })
  const [out, err] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text()])
  expect(await proc.exited, out + err).toBe(0)
  expect(out).toContain('scripted stand-in model')
  expect(out).toContain('not a language model')
  expect(out).toMatch(/agent\s+We are open from nine to five/)
  expect(out).not.toMatch(/https?:\/\//)
  expect(out).toContain(`recording (stereo: caller left, agent right): ${join(cwd, 'demo-call.wav')}`)
  expect(statSync(join(cwd, 'demo-call.wav')).size).toBeGreaterThan(44)
  expect(existsSync(join(cwd, 'data'))).toBe(false)
}, 90_000)
