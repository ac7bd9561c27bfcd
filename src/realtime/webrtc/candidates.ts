// Which ICE candidates of a browser the appliance will send connectivity checks to. Pure.
// A web-call offer is written by whoever holds an API key: each candidate makes werift send
// STUN requests to its address, so the candidates pass the address rules of SIP media (no cloud
// metadata, link-local, multicast, reserved or documentation addresses), never a name (no DNS,
// no multicast DNS), and only so many per call.
import { isIP } from 'node:net'
import { classifyAddress, type ForbiddenClass, NetworkList } from '../../platform/net/index.ts'

/** Remote candidates a call takes at most, from its offer and trickled together (WEBRTC_MAX_REMOTE_CANDIDATES). */
export const DEFAULT_MAX_REMOTE_CANDIDATES = 20

// A browser on the LAN or this machine is the normal case; everything else the SIP media rules
// refuse stays refused unless WEBRTC_ALLOW_NETWORKS lists it.
const ALLOWED = new Set<ForbiddenClass>(['loopback', 'private'])
const NEVER = new Set<ForbiddenClass>(['unspecified', 'multicast'])
// Browsers gather from ephemeral ports; a candidate at a well-known port aims checks at a service.
const LOWEST_PORT = 1024

export interface CandidatePolicy {
  /** WEBRTC_ALLOW_NETWORKS: networks admitted although their class is refused. */
  allowNetworks: NetworkList
  maxRemoteCandidates: number
}

/** The policy of WebRtcOptions, which cross to call workers as plain data. */
export const candidatePolicyOf = (o: { allowNetworks: string[]; maxRemoteCandidates: number }): CandidatePolicy => ({
  allowNetworks: new NetworkList(o.allowNetworks),
  maxRemoteCandidates: o.maxRemoteCandidates,
})

export interface ParsedCandidate {
  address: string
  port: number
  transport: string
  type: string
}

/** `candidate:<foundation> <component> <transport> <priority> <address> <port> typ <type> ...`, with or without `a=`. */
export function parseCandidate(line: string): ParsedCandidate | undefined {
  const m = /^(?:a=)?candidate:\S+ \d+ (\S+) \d+ (\S+) (\d+) typ (\S+)/i.exec(line.trim())
  if (!m) return undefined
  return { transport: m[1]!.toLowerCase(), address: m[2]!, port: Number(m[3]), type: m[4]!.toLowerCase() }
}

/** Why checks must not go to this candidate; undefined when they may. */
export function candidateRefusal(line: string, policy: Pick<CandidatePolicy, 'allowNetworks'>): string | undefined {
  const c = parseCandidate(line)
  if (!c) return 'not an ICE candidate line'
  if (c.transport !== 'udp') return `transport ${c.transport}: only UDP candidates are used`
  if (isIP(c.address) === 0) return 'the address is a name: candidates are never resolved (no DNS, no multicast DNS)'
  if (c.port < LOWEST_PORT || c.port > 65535) return `port ${c.port}: candidates must use ports ${LOWEST_PORT}-65535`
  const cls = classifyAddress(c.address)
  if (!cls || ALLOWED.has(cls)) return undefined
  if (!NEVER.has(cls) && policy.allowNetworks.has(c.address)) return undefined
  return `${c.address} is a ${cls} address (WEBRTC_ALLOW_NETWORKS admits networks other than multicast and unspecified)`
}

/** Counts a call's remote candidates against its cap; one per call, offer and trickle together. */
export class CandidateGate {
  private taken = 0
  /** Candidates refused, by reason, for the call's log line. */
  readonly refused = new Map<string, number>()

  constructor(private readonly policy: CandidatePolicy) {}

  /** Whether this candidate is used; a refused one is counted under its reason. */
  admit(line: string): boolean {
    let reason = candidateRefusal(line, this.policy)
    if (!reason && this.taken >= this.policy.maxRemoteCandidates) reason = `over ${this.policy.maxRemoteCandidates} candidates for one call`
    if (reason) {
      const key = reason.replace(/^\S+ is a /, 'a ')
      this.refused.set(key, (this.refused.get(key) ?? 0) + 1)
      return false
    }
    this.taken++
    return true
  }

  /** The offer with only the candidate lines this gate admits (the others are dropped before werift reads them). */
  filterSdp(sdp: string): string {
    return sdp
      .split(/\r?\n/)
      .filter((l) => !/^a=candidate:/i.test(l.trim()) || this.admit(l))
      .join('\r\n')
  }
}
