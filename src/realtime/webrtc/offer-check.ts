// An offer whose ICE or DTLS cannot start is refused before it holds a call place: without ICE
// credentials or a DTLS fingerprint no connection can ever form, and an offer that ended its
// candidates (a=end-of-candidates) without giving one has nothing left to trickle.

/** Why ICE or DTLS cannot start with this offer; undefined: it may. Attribute lines count at session or media level. */
export function unusableOffer(sdp: unknown): string | undefined {
  if (typeof sdp !== 'string') return undefined // the schema and the answerer say what is wrong with it
  const lines = sdp.split(/\r?\n/)
  const has = (prefix: string) => lines.some((l) => l.startsWith(prefix) && l.length > prefix.length)
  if (!has('a=ice-ufrag:') || !has('a=ice-pwd:')) return 'the offer has no ICE credentials (a=ice-ufrag and a=ice-pwd): ICE cannot start'
  if (!has('a=fingerprint:')) return 'the offer has no DTLS fingerprint (a=fingerprint): DTLS cannot start'
  if (lines.includes('a=end-of-candidates') && !has('a=candidate:')) return 'the offer ended its ICE candidates without giving one: no connection can form'
  return undefined
}
