// The web-call keys: WEBRTC_HOST_ADDRESSES, WEBRTC_ICE_SERVERS and the WebRTC port range. Pure.
import { isIP } from 'node:net'
import { parseNetworks } from '../net/networks.ts'

export interface IceServer {
  urls: string | string[]
  username?: string
  credential?: string
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

/** Why the web-call keys cannot be used, or undefined. */
export function webrtcSettingsProblem(cfg: {
  WEBRTC_HOST_ADDRESSES: string
  WEBRTC_ICE_SERVERS: string
  WEBRTC_PORT_MIN: number
  WEBRTC_PORT_MAX: number
  WEBRTC_ALLOW_NETWORKS: string
  WEBRTC_MAX_REMOTE_CANDIDATES: number
}): string | undefined {
  try {
    parseHostAddresses(cfg.WEBRTC_HOST_ADDRESSES)
    parseIceServers(cfg.WEBRTC_ICE_SERVERS)
  } catch (err) {
    return (err as Error).message
  }
  try {
    parseNetworks(cfg.WEBRTC_ALLOW_NETWORKS)
  } catch (err) {
    return `WEBRTC_ALLOW_NETWORKS: ${(err as Error).message}`
  }
  const cap = cfg.WEBRTC_MAX_REMOTE_CANDIDATES
  if (!Number.isInteger(cap) || cap < 1 || cap > 100) return `WEBRTC_MAX_REMOTE_CANDIDATES must be an integer 1-100, got ${cap}`
  const { WEBRTC_PORT_MIN: min, WEBRTC_PORT_MAX: max } = cfg
  if (min === 0 && max === 0) return undefined
  if (!Number.isInteger(min) || !Number.isInteger(max) || min < 1024 || max > 65535 || min >= max) {
    return `WEBRTC_PORT_MIN-WEBRTC_PORT_MAX must be a range within 1024-65535 with MIN below MAX (or both 0), got ${min}-${max}`
  }
  return undefined
}
