// How the appliance's WebRTC side gathers and admits ICE candidates. Pure.
import { isIP } from 'node:net'

export interface IceServer {
  urls: string | string[]
  username?: string
  credential?: string
}

export interface WebRtcOptions {
  /**
   * Addresses offered as host candidates. Empty: every IPv4 interface address of the machine
   * (the LAN), never a loopback one. Only host candidates unless `iceServers` names STUN/TURN.
   */
  hostAddresses: string[]
  /** STUN/TURN servers for operators behind NAT; none by default, so nothing is asked of the internet. */
  iceServers: IceServer[]
  /** The UDP ports WebRTC media binds (inclusive); undefined: any free port. */
  portRange?: [number, number]
}

const isLoopback = (address: string) => address.startsWith('127.') || address === '::1'

/**
 * Whether a remote address may be a candidate pair's far end. Host candidates on loopback only
 * talk to loopback: a browser on the same machine must not reach them through its LAN address.
 */
export function admitsRemote(options: Pick<WebRtcOptions, 'hostAddresses' | 'iceServers'>, address: string): boolean {
  if (isIP(address) === 0) return false
  const loopbackOnly = options.hostAddresses.length > 0 && options.hostAddresses.every(isLoopback) && options.iceServers.length === 0
  return !loopbackOnly || isLoopback(address)
}

/** WEBRTC_ICE_SERVERS: a JSON array of {urls, username?, credential?}, as RTCConfiguration takes them. */
export function parseIceServers(json: string): IceServer[] {
  if (json.trim() === '') return []
  let value: unknown
  try {
    value = JSON.parse(json)
  } catch {
    throw new RangeError('WEBRTC_ICE_SERVERS must be a JSON array of {"urls": ..., "username"?, "credential"?}')
  }
  if (!Array.isArray(value)) throw new RangeError('WEBRTC_ICE_SERVERS must be a JSON array')
  return value.map((s, i) => {
    const urls = (s as IceServer)?.urls
    const list = Array.isArray(urls) ? urls : [urls]
    if (list.length === 0 || !list.every((u) => typeof u === 'string' && /^(stun|stuns|turn|turns):/.test(u))) {
      throw new RangeError(`WEBRTC_ICE_SERVERS[${i}].urls must be stun:, stuns:, turn: or turns: URLs`)
    }
    const { username, credential } = s as IceServer
    if ((username !== undefined && typeof username !== 'string') || (credential !== undefined && typeof credential !== 'string')) {
      throw new RangeError(`WEBRTC_ICE_SERVERS[${i}]: username and credential must be strings`)
    }
    return { urls, ...(username !== undefined && { username }), ...(credential !== undefined && { credential }) }
  })
}

/** WEBRTC_HOST_ADDRESSES: comma-separated IP addresses. */
export function parseHostAddresses(list: string): string[] {
  const out = list.split(',').map((a) => a.trim()).filter(Boolean)
  for (const a of out) if (isIP(a) === 0) throw new RangeError(`WEBRTC_HOST_ADDRESSES: ${JSON.stringify(a)} is not an IP address`)
  return out
}
