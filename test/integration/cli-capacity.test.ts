// `voice-agent capacity`, run as an operator runs it, in its quick mode: it stops by itself,
// prints a row per kind of call, and --write puts CALLS_MAX into the configuration file.
// Only the output's shape and the write are checked, never the machine's speed.
import { expect, test } from 'bun:test'
import { availableParallelism } from 'node:os'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { tempDir } from '../helpers/tmp.ts'

const MAIN = join(import.meta.dir, '../../src/main.ts')

async function cli(args: string[], env: Record<string, string>) {
  const p = Bun.spawn([process.execPath, MAIN, ...args], { env: { PATH: process.env.PATH ?? '', ...env }, stdout: 'pipe', stderr: 'pipe' })
  const [out, err, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited])
  return { code, out, err }
}

test('the quick run prints each kind with its calls per core and writes the least into CALLS_MAX', async () => {
  const dir = tempDir('capacity-cli-')
  const file = join(dir, 'appliance.config.json')
  writeFileSync(file, JSON.stringify({ HTTP_PORT: 3111 }))
  const r = await cli(['capacity', '--quick', '--max', '2', '--write'], { DATA_DIR: dir, CONFIG_FILE: file })
  expect(r.code, r.err).toBe(0)
  const [header, ...rows] = r.out.trim().split('\n').map((l) => l.split('\t'))
  expect(header).toEqual(['kind', 'calls', 'per_core', 'limited_by'])
  expect(rows.map((row) => row[0])).toEqual(['offline-stt', 'workflow', 'cloud-stt', 'web', 'stream'])
  const measured = rows.filter((row) => row[1] !== '-')
  expect(measured.map((row) => row[0])).toEqual(['offline-stt', 'workflow'])
  for (const [, calls, perCore, why] of measured) {
    expect(Number(calls)).toBeOneOf([0, 1, 2])
    expect(perCore).toBe((Number(calls) / availableParallelism()).toFixed(1))
    expect(why).toMatch(/^(\d+ calls: |held at the most probed \(2\): ).+ ms \(goal \d+ ms\)$/)
  }
  for (const row of rows.slice(2)) expect(row[3]).toStartWith('not measured here')
  const least = Math.max(1, Math.min(...measured.map((row) => Number(row[1]))))
  expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ HTTP_PORT: 3111, CALLS_MAX: least })
  expect(r.err).toContain(`wrote CALLS_MAX=${least} to ${file}`)
}, 180_000)

test('a bad argument is a usage error that measures nothing', async () => {
  const dir = tempDir('capacity-cli-')
  const r = await cli(['capacity', '--max', 'lots'], { DATA_DIR: dir })
  expect(r.code).toBe(2)
  expect(r.err).toContain('usage: voice-agent capacity')
  expect(r.out).toBe('')
})
