// Runs Debian's Kamailio with a test copy of deploy/kamailio/kamailio.cfg: its settings lines
// rewritten for 127.0.0.1 (ports, the node list, a short probe interval, a temp control
// socket), in the foreground in a temp dir, stopped (and the dir removed) at the end.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { freePort } from './sipp.ts'
import { untilAsync } from './until.ts'

export const KAMAILIO_CFG = join(import.meta.dir, '../../deploy/kamailio/kamailio.cfg')
export const hasKamailio = () => Bun.which('kamailio', { PATH: `${process.env.PATH}:/usr/sbin` }) !== null

export interface KamailioOptions {
  /** SIP URIs of the appliance nodes, e.g. sip:127.0.0.1:5071. */
  nodes: string[]
  pingIntervalSec?: number
  nodeAnswerTimeoutMs?: number
  trunk?: { host: string; port: number }
}

export interface DispatcherTarget {
  uri: string
  /** Kamailio's flags: A... active, I... inactive, D... disabled; P probing. */
  flags: string
}

export interface Kamailio {
  port: number
  /** The main process (its children are Kamailio's workers). */
  pid: number
  /** Every line Kamailio logged so far. */
  log: string[]
  /** The dispatcher's view of the nodes (kamcmd dispatcher.list). */
  targets(): Promise<DispatcherTarget[]>
  /** Waits until the dispatcher holds `uri` for active (true) or inactive (false). */
  untilNode(uri: string, active: boolean, timeoutMs?: number): Promise<void>
  stop(): Promise<void>
}

/** The configuration with each `#!define NAME value` line of its settings replaced. Pure. */
export function renderKamailioCfg(template: string, settings: Record<string, string | number>): string {
  let cfg = template
  for (const [name, value] of Object.entries(settings)) {
    const line = new RegExp(`^#!define ${name} .*$`, 'm')
    if (!line.test(cfg)) throw new Error(`kamailio.cfg has no #!define ${name}`)
    cfg = cfg.replace(line, `#!define ${name} ${value}`)
  }
  return cfg
}

const kamailioBin = () => Bun.which('kamailio', { PATH: `${process.env.PATH}:/usr/sbin` }) ?? 'kamailio'
const kamcmdBin = () => Bun.which('kamcmd', { PATH: `${process.env.PATH}:/usr/sbin` }) ?? 'kamcmd'

export async function startKamailio(o: KamailioOptions): Promise<Kamailio> {
  const dir = mkdtempSync(join(tmpdir(), 'kamailio-'))
  const port = await freePort()
  const ctl = `unix:${join(dir, 'ctl')}`
  const trunk = o.trunk ?? { host: '127.0.0.1', port: 9 }
  writeFileSync(join(dir, 'dispatcher.list'), o.nodes.map((uri, i) => `1 ${uri} 0 0 duid=node-${i + 1}`).join('\n') + '\n')
  const cfg = renderKamailioCfg(readFileSync(KAMAILIO_CFG, 'utf8'), {
    LISTEN_UDP: `udp:127.0.0.1:${port}`,
    LISTEN_TCP: `tcp:127.0.0.1:${port}`,
    DISPATCHER_LIST: JSON.stringify(join(dir, 'dispatcher.list')),
    CTL_SOCKET: JSON.stringify(ctl),
    PING_INTERVAL: o.pingIntervalSec ?? 1,
    NODE_ANSWER_TIMEOUT: o.nodeAnswerTimeoutMs ?? 1000,
    TRUNK_HOST: JSON.stringify(trunk.host),
    TRUNK_PORT: JSON.stringify(String(trunk.port)),
  })
  writeFileSync(join(dir, 'kamailio.cfg'), cfg)
  const proc = Bun.spawn([kamailioBin(), '-DD', '-E', '-Y', dir, '-w', dir, '-m', '64', '-M', '8', '-f', join(dir, 'kamailio.cfg')], {
    cwd: dir,
    stdout: 'pipe',
    stderr: 'pipe',
  })
  const log: string[] = []
  const collect = async (stream: ReadableStream<Uint8Array>) => {
    const decoder = new TextDecoder()
    for await (const chunk of stream) log.push(...decoder.decode(chunk).split('\n').filter(Boolean))
  }
  const drained = Promise.all([collect(proc.stdout), collect(proc.stderr)])

  const targets = async (): Promise<DispatcherTarget[]> => {
    const run = Bun.spawnSync([kamcmdBin(), '-s', ctl, 'dispatcher.list'])
    if (run.exitCode !== 0) throw new Error(`kamcmd: ${run.stderr.toString()}`)
    const out = run.stdout.toString()
    return [...out.matchAll(/URI: (\S+)\s+FLAGS: (\S+)/g)].map((m) => ({ uri: m[1]!, flags: m[2]! }))
  }
  const stop = async () => {
    proc.kill('SIGTERM')
    await Promise.race([proc.exited, Bun.sleep(3000)]) // grace period only, not synchronisation
    if (proc.exitCode === null) proc.kill('SIGKILL')
    await proc.exited
    await drained
    rmSync(dir, { recursive: true, force: true })
  }
  try {
    await untilAsync(
      async () => {
        if (proc.exitCode !== null) throw new Error(`kamailio exited (${proc.exitCode}):\n${log.slice(-30).join('\n')}`)
        try {
          return (await targets()).length === o.nodes.length
        } catch {
          return false
        }
      },
      10_000,
      'kamailio to start',
      50,
    )
  } catch (err) {
    await stop()
    throw err
  }
  return {
    port,
    pid: proc.pid,
    log,
    targets,
    untilNode: (uri, active, timeoutMs = 15_000) =>
      untilAsync(async () => (await targets()).some((t) => t.uri === uri && t.flags.startsWith(active ? 'A' : 'I')), timeoutMs, `node ${uri} ${active ? 'active' : 'inactive'}`, 100),
    stop,
  }
}
