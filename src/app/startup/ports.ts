// Before anything listens, each configured port is bound once, exclusively, and let go: a port
// another program (or a second appliance) holds stops the start, naming its key, instead of a
// raw EADDRINUSE after HTTP already answered. The real listeners bind without SO_REUSEPORT, so
// the check cannot be fooled by a socket that shares.
import net from 'node:net'
import type { Config } from '../../platform/config/index.ts'
import { ConfigError } from '../../platform/config/index.ts'

/** A listening port is taken; exit code 2 like any other configuration problem. */
export class PortInUseError extends ConfigError {
  constructor(
    readonly key: string,
    readonly port: number | string,
    readonly host: string,
    proto: string,
  ) {
    super(`${key} ${port} (${proto} on ${host}) is in use by another program; stop it or choose another ${key}`)
  }
}

export type PortSettings = Pick<Config, 'HTTP_HOST' | 'HTTP_PORT' | 'SIP_HOST' | 'SIP_PORT' | 'SIP_TLS_PORT' | 'SIP_TLS_CERT_FILE' | 'SIP_TLS_KEY_FILE' | 'RTP_PORT_MIN' | 'RTP_PORT_MAX'>

export interface PortCheck {
  /** RTP port pairs of the range another program holds (calls use the rest). */
  rtpPairsTaken: number
  rtpPairs: number
}

/** Throws PortInUseError for the first configured port in use; RTP fails only when no pair of the range is free. */
export async function checkPortsFree(cfg: PortSettings): Promise<PortCheck> {
  const udp = (port: number, host: string) => bindsUdp(port, host)
  if (!(await bindsTcp(cfg.HTTP_PORT, cfg.HTTP_HOST))) throw new PortInUseError('HTTP_PORT', cfg.HTTP_PORT, cfg.HTTP_HOST, 'TCP')
  if (cfg.SIP_PORT !== 0) {
    if (!(await udp(cfg.SIP_PORT, cfg.SIP_HOST))) throw new PortInUseError('SIP_PORT', cfg.SIP_PORT, cfg.SIP_HOST, 'UDP')
    if (!(await bindsTcp(cfg.SIP_PORT, cfg.SIP_HOST))) throw new PortInUseError('SIP_PORT', cfg.SIP_PORT, cfg.SIP_HOST, 'TCP')
  }
  if (cfg.SIP_TLS_CERT_FILE && cfg.SIP_TLS_KEY_FILE && !(await bindsTcp(cfg.SIP_TLS_PORT, cfg.SIP_HOST))) {
    throw new PortInUseError('SIP_TLS_PORT', cfg.SIP_TLS_PORT, cfg.SIP_HOST, 'TCP')
  }
  let rtpPairs = 0
  let rtpPairsTaken = 0
  for (let port = cfg.RTP_PORT_MIN % 2 === 0 ? cfg.RTP_PORT_MIN : cfg.RTP_PORT_MIN + 1; port + 1 <= cfg.RTP_PORT_MAX; port += 2) {
    rtpPairs++
    if (!(await udp(port, cfg.SIP_HOST)) || !(await udp(port + 1, cfg.SIP_HOST))) rtpPairsTaken++
  }
  if (rtpPairsTaken === rtpPairs) {
    throw new PortInUseError('RTP_PORT_MIN-RTP_PORT_MAX', `${cfg.RTP_PORT_MIN}-${cfg.RTP_PORT_MAX}`, cfg.SIP_HOST, 'UDP, every port pair')
  }
  return { rtpPairs, rtpPairsTaken }
}

/** A listener's bind failure as the start reports it: EADDRINUSE becomes PortInUseError. */
export function portErrorOf(err: unknown, key: string, port: number, host: string, proto: string): unknown {
  const code = (err as { code?: string } | undefined)?.code
  const inUse = code === 'EADDRINUSE' || /EADDRINUSE|address already in use/i.test(String((err as Error | undefined)?.message))
  return inUse ? new PortInUseError(key, port, host, proto) : err
}

function bindsTcp(port: number, host: string): Promise<boolean> {
  if (port === 0) return Promise.resolve(true)
  return new Promise((res) => {
    const server = net.createServer()
    server.once('error', () => res(false))
    server.listen({ port, host, exclusive: true }, () => server.close(() => res(true)))
  })
}

async function bindsUdp(port: number, host: string): Promise<boolean> {
  if (port === 0) return true
  try {
    const sock = await Bun.udpSocket({ hostname: host, port })
    sock.close()
    return true
  } catch {
    return false
  }
}
