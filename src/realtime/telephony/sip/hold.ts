// Hold and unhold through the SDP direction attribute (RFC 3264 section 8.4).
import * as sdpTransform from 'sdp-transform'

export type Direction = 'sendrecv' | 'sendonly' | 'recvonly' | 'inactive'

/** Direction of the first audio stream (media level wins over session level); c=0.0.0.0 is hold. */
export function sdpDirection(sdp: string): Direction {
  const s = sdpTransform.parse(sdp)
  const audio = s.media.find((m) => m.type === 'audio') ?? s.media[0]
  const ip = audio?.connection?.ip ?? s.connection?.ip
  const dir = (audio?.direction ?? s.direction ?? 'sendrecv') as Direction
  if (ip === '0.0.0.0' && dir === 'sendrecv') return 'sendonly'
  return dir
}

/** The direction we answer with when the peer offers `offered`. */
export function answerDirection(offered: Direction): Direction {
  return offered === 'sendonly' ? 'recvonly' : offered === 'recvonly' ? 'sendonly' : offered
}

/** Our SDP with every media stream set to `dir` and the origin version bumped. */
export function withDirection(sdp: string, dir: Direction): string {
  const s = sdpTransform.parse(sdp)
  delete s.direction
  for (const m of s.media) m.direction = dir
  if (s.origin) s.origin.sessionVersion = Number(s.origin.sessionVersion) + 1
  return sdpTransform.write(s)
}

export const isHold = (d: Direction): boolean => d === 'sendonly' || d === 'inactive'
