// Runs SIPp (Debian package sip-tester) as a real SIP peer in a temporary working folder.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import dgram from 'node:dgram'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { tempDir } from './tmp.ts'

export interface SippRun {
  code: number
  stdout: string
  stderr: string
}

/** A port free for both UDP and TCP on 127.0.0.1 right now. */
const handedOut: number[] = []
const udpFree = (port: number) =>
  new Promise<boolean>((res) => {
    const u = dgram.createSocket('udp4')
    u.once('error', () => res(false))
    u.bind(port, '127.0.0.1', () => u.close(() => res(true)))
  })

/**
 * A port free on TCP and UDP, with the three above it free on UDP too: SIPp's `-mp` media port
 * also takes port+2 (and RTCP the odd ones). Ports within 4 of one this process has handed out are
 * not handed out again, so calls started together never collide on each other's media ports.
 */
export async function freePort(): Promise<number> {
  for (;;) {
    const port = await new Promise<number>((res) => {
      const s = createServer().listen(0, '127.0.0.1', () => {
        const p = (s.address() as { port: number }).port
        s.close(() => res(p))
      })
    })
    if (port > 65531 || handedOut.some((p) => Math.abs(p - port) <= 4)) continue
    let ok = true
    for (let i = 0; i < 4 && ok; i++) ok = await udpFree(port + i)
    // another caller may have taken a port near this one while the checks above awaited
    if (!ok || handedOut.some((p) => Math.abs(p - port) <= 4)) continue
    handedOut.push(port)
    if (handedOut.length > 4096) handedOut.shift()
    return port
  }
}

export interface SippProcess {
  exited: Promise<SippRun>
  kill(): void
}

/** Starts sipp with `args` (never interactive); resolves with its exit code and output. */
export function sipp(args: string[], timeoutSec = 20): SippProcess {
  const dir = mkdtempSync(join(tmpdir(), 'sipp-'))
  const proc = Bun.spawn(['sipp', ...args, '-nostdin', '-timeout', `${timeoutSec}s`, '-timeout_error'], {
    cwd: dir, stdout: 'pipe', stderr: 'pipe',
  })
  const exited = (async () => {
    const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited])
    rmSync(dir, { recursive: true, force: true })
    return { code, stdout, stderr }
  })()
  return { exited, kill: () => proc.kill() }
}

/** Writes a scenario template with its @NAME@ placeholders filled to a temporary file; returns its path. */
export function scenarioFrom(template: string, values: Record<string, string>): string {
  let xml = readFileSync(template, 'utf8')
  for (const [k, v] of Object.entries(values)) xml = xml.replaceAll(`@${k}@`, v)
  const path = join(tempDir('sipp-scenario-'), 'scenario.xml')
  writeFileSync(path, xml)
  return path
}
