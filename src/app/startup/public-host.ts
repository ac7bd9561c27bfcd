// The address SIP peers are told to send to (SDP c=, Contact, Via). Unset, it was 127.0.0.1, so
// the first call from a real PBX had no audio; now it is the address of the interface the
// default route leaves by, logged at start, with a warning where it cannot reach a peer.
import dgram from 'node:dgram'
import { readFileSync } from 'node:fs'
import { isIP } from 'node:net'
import { networkInterfaces } from 'node:os'
import type { Config } from '../../platform/config/index.ts'
import type { Logger } from '../../platform/log.ts'

export type PublicHostSource = 'configured' | 'default route' | 'none found'

export interface PublicHost {
  host: string
  source: PublicHostSource
}

/** The NAT advice of docs/pbx.md, one line: what an operator behind NAT must set. */
export const NAT_ADVICE =
  'behind NAT, set PUBLIC_HOST to the address the PBX reaches (the public one), forward SIP_PORT and RTP_PORT_MIN-RTP_PORT_MAX to this host, and turn off the router\'s SIP ALG (docs/pbx.md)'

/** PUBLIC_HOST as configured, else the default route's address, else 127.0.0.1. */
export async function resolvePublicHost(cfg: Pick<Config, 'PUBLIC_HOST'>, routeFile = '/proc/net/route'): Promise<PublicHost> {
  if (cfg.PUBLIC_HOST) return { host: cfg.PUBLIC_HOST, source: 'configured' }
  const found = defaultRouteAddress(routeFile) ?? (await routedAddress())
  return found ? { host: found, source: 'default route' } : { host: '127.0.0.1', source: 'none found' }
}

/** The IPv4 address of the interface of the default route in a /proc/net/route table (lowest metric first). */
export function defaultRouteAddress(routeFile: string, interfaces = networkInterfaces()): string | undefined {
  let table: string
  try {
    table = readFileSync(routeFile, 'utf8')
  } catch {
    return undefined
  }
  const defaults = table
    .split('\n')
    .slice(1)
    .map((line) => line.trim().split(/\s+/))
    .filter((f) => f.length >= 8 && f[1] === '00000000' && f[7] === '00000000' && (parseInt(f[3]!, 16) & 1) === 1)
    .sort((a, b) => Number(a[6]) - Number(b[6]))
  for (const f of defaults) {
    const address = interfaces[f[0]!]?.find((a) => a.family === 'IPv4' && !a.internal)?.address
    if (address) return address
  }
  return undefined
}

/**
 * Where the kernel would send from to a public address: a UDP connect() only chooses the route
 * and the source address, no packet leaves the machine.
 */
function routedAddress(): Promise<string | undefined> {
  return new Promise((res) => {
    const sock = dgram.createSocket('udp4')
    const done = (address?: string) => {
      try {
        sock.close()
      } catch {}
      res(address && address !== '0.0.0.0' ? address : undefined)
    }
    sock.once('error', () => done())
    sock.connect(9, '203.0.113.1', () => done(sock.address().address))
  })
}

export function isLoopbackHost(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase()
  if (h === 'localhost' || h === '::1') return true
  return isIP(h) === 4 && h.startsWith('127.')
}

/** Says so when peers beyond this machine can reach SIP but are told to send media to loopback. */
export function publicHostWarning(publicHost: string, sipHost: string): string | undefined {
  if (!isLoopbackHost(publicHost) || isLoopbackHost(sipHost)) return undefined
  return `PUBLIC_HOST is ${publicHost}, a loopback address, but SIP listens on ${sipHost}: peers on other machines are told to send audio to themselves and calls have no audio; set PUBLIC_HOST to the address the PBX reaches this host at (docs/pbx.md)`
}

/**
 * The address to advertise, logged with the NAT advice (a warning when it is loopback while SIP
 * listens beyond), and the warnings for /ready. Changes nothing: settle.ts puts it in the config.
 */
export async function adoptPublicHost(
  config: Pick<Config, 'PUBLIC_HOST' | 'SIP_HOST'>,
  log: Pick<Logger, 'info' | 'warn'>,
  resolve: (cfg: Pick<Config, 'PUBLIC_HOST'>) => Promise<PublicHost> = resolvePublicHost,
): Promise<{ host: string; warnings: string[] }> {
  const chosen = await resolve(config)
  const warning = publicHostWarning(chosen.host, config.SIP_HOST)
  const fields = { publicHost: chosen.host, source: chosen.source, sipHost: config.SIP_HOST, advice: NAT_ADVICE }
  if (warning) log.warn(fields, warning)
  else log.info(fields, `advertising ${chosen.host} to SIP peers (PUBLIC_HOST ${chosen.source === 'configured' ? 'as configured' : `unset: ${chosen.source}`})`)
  return { host: chosen.host, warnings: warning ? [warning] : [] }
}
