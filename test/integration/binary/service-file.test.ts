// deploy/voice-agent.service is checked by systemd itself, pointing at a real built executable.
import { expect, test } from 'bun:test'
import { testNeedingPackage } from '../../helpers/debian.ts'
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { buildExecutable } from '../../helpers/executable.ts'

const UNIT = join(import.meta.dir, '../../../deploy/voice-agent.service')
const analyze = Bun.which('systemd-analyze')

testNeedingPackage('systemd', analyze !== null)('systemd-analyze verify accepts the service unit', () => {
  const dir = mkdtempSync(join(tmpdir(), 'unit-'))
  try {
    const unit = readFileSync(UNIT, 'utf8')
    expect(unit).toContain('ExecStart=/usr/local/bin/voice-agent serve')
    // verify checks that ExecStart is executable: point it at a build of this checkout
    const file = join(dir, 'voice-agent.service')
    writeFileSync(file, unit.replaceAll('/usr/local/bin/voice-agent', buildExecutable()))
    const r = Bun.spawnSync([analyze!, 'verify', file], { stderr: 'pipe', stdout: 'pipe' })
    expect(r.exitCode, r.stderr.toString()).toBe(0)
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}, 60_000)

test('the unit hardens the service: own user, read-only system, writes only to its data directory', () => {
  const unit = readFileSync(UNIT, 'utf8')
  for (const line of ['User=voice-agent', 'ProtectSystem=strict', 'ReadWritePaths=/var/lib/voice-agent', 'Restart=on-failure', 'KillSignal=SIGTERM', 'RestartPreventExitStatus=2 3']) {
    expect(unit).toContain(line)
  }
})

test('each file the unit\'s Documentation= names is created by an install command of its header, from a file of this checkout', () => {
  const unit = readFileSync(UNIT, 'utf8')
  const docs = unit.match(/^Documentation=(.*)$/m)?.[1]?.split(/\s+/).filter(Boolean) ?? []
  const installs = [...unit.matchAll(/^#\s+install\s+(?:-\S+\s+)*?(?:-m\s+\S+\s+)?(\S+)\s+(\/\S+)$/gm)].map((m) => ({ from: m[1]!, to: m[2]! }))
  for (const uri of docs) {
    if (!uri.startsWith('file:')) continue
    const path = new URL(uri).pathname
    const step = installs.find((i) => i.to === path)
    expect(step, `${uri} is created by no install command in the unit's header`).toBeDefined()
    expect(existsSync(join(import.meta.dir, '../../..', step!.from)), step!.from).toBe(true)
  }
})
