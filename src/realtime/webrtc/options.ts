// How the appliance's WebRTC side gathers and admits ICE candidates. Pure.
import { isIP } from 'node:net'
import type { IceServer } from '../../platform/config/index.ts'

export { parseHostAddresses, parseIceServers, type IceServer } from '../../platform/config/index.ts'

/** The offer was not one we can answer (no audio, no Opus, not WebRTC). */
export class WebRtcOfferError extends Error {}

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
  /** WEBRTC_ALLOW_NETWORKS as CIDRs: remote candidates admitted although their address class is refused (candidates.ts). */
  allowNetworks: string[]
  /** WEBRTC_MAX_REMOTE_CANDIDATES: candidates one call takes at most, offered and trickled. */
  maxRemoteCandidates: number
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

/** The close reason of a peer that did not connect in time (WEB_CALL_CONNECT_MS): it ends saying why, ice_failed or dtls_failed. */
export const CONNECT_TIMEOUT = 'connect_timeout'
