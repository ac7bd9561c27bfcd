// The media keys: MEDIA_CODECS, MEDIA_ENCRYPTION (a number's default policy), SRTP_SUITES and
// MEDIA_PACER. The suite names are those of realtime/srtp, which this layer may not import; a
// unit test keeps the two lists equal (test/unit/srtp/config-suites.test.ts). The codec names
// are the SDP layer's: it reads MEDIA_CODECS with parseMediaCodecs.

/** The codecs SIP negotiates, as MEDIA_CODECS names them. */
export const MEDIA_CODEC_NAMES = ['PCMU', 'PCMA', 'opus'] as const
export type MediaCodecName = (typeof MEDIA_CODEC_NAMES)[number]

/** A preference list such as "opus,PCMU,PCMA" (any case), each codec once; throws RangeError on an unknown name or an empty list. */
export function parseMediaCodecs(list: string): MediaCodecName[] {
  const out: MediaCodecName[] = []
  for (const raw of list.split(',')) {
    const name = raw.trim()
    if (!name) continue
    const match = MEDIA_CODEC_NAMES.find((c) => c.toLowerCase() === name.toLowerCase())
    if (!match) throw new RangeError(`unknown codec ${JSON.stringify(name)} (known: ${MEDIA_CODEC_NAMES.join(', ')})`)
    if (!out.includes(match)) out.push(match)
  }
  if (out.length === 0) throw new RangeError('the codec list is empty')
  return out
}

export const MEDIA_ENCRYPTIONS = ['none', 'optional', 'required'] as const
/** MEDIA_PACER: who puts a SIP call's RTP on the wire (docs/media.md, Pacing). */
export const MEDIA_PACERS = ['realtime', 'thread', 'off'] as const

/** Why MEDIA_PACER cannot be used, or undefined. */
export function mediaPacerProblem(value: string): string | undefined {
  return (MEDIA_PACERS as readonly string[]).includes(value) ? undefined : `MEDIA_PACER must be realtime, thread or off, got ${value}`
}
export type MediaEncryptionSetting = (typeof MEDIA_ENCRYPTIONS)[number]

export const CONFIGURABLE_SRTP_SUITES = ['AES_CM_128_HMAC_SHA1_80', 'AES_CM_128_HMAC_SHA1_32', 'AEAD_AES_128_GCM'] as const

/** The suites of a comma-separated SRTP_SUITES value, in its order. */
export function parseSrtpSuiteList(value: string): string[] {
  return value.split(',').map((s) => s.trim()).filter(Boolean)
}

/** Why SRTP_SUITES cannot be used, or undefined. */
export function srtpSuitesProblem(value: string): string | undefined {
  const suites = parseSrtpSuiteList(value)
  if (!suites.length) return `lists no suite; name at least one of ${CONFIGURABLE_SRTP_SUITES.join(', ')}`
  const unknown = suites.filter((s) => !(CONFIGURABLE_SRTP_SUITES as readonly string[]).includes(s))
  if (unknown.length) return `unknown suite ${unknown.join(', ')}; the suites are ${CONFIGURABLE_SRTP_SUITES.join(', ')}`
  if (new Set(suites).size !== suites.length) return 'names a suite twice'
  return undefined
}
