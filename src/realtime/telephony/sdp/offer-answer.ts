// SDP offer/answer for one audio stream (RFC 3264) on top of sdp-transform, with SDES keys for
// SRTP (RFC 4568, see srtp.ts) when the call's media encryption asks for them. Pure: strings in,
// strings and negotiated parameters out.

import * as sdpTransform from 'sdp-transform'
import { CODEC_DEFAULTS, ptimeAllowed, TELEPHONE_EVENT_PT, type CodecSpec, type Direction } from './codecs.ts'
import { generateInlineKey, type SrtpSuite } from '../../srtp/index.ts'
import { mediaAddressProblem } from './media-address.ts'
import {
  chooseOfferCrypto,
  cryptoAttribute,
  cryptoLinesByMedia,
  DEFAULT_SRTP_SUITES,
  isPlainProfile,
  isSecureProfile,
  NegotiatedSrtp,
  OfferedSrtp,
  unusableCryptoReason,
  type MediaEncryption,
} from './srtp.ts'
import { SdpError, type LocalMediaOptions, type MediaOffer, type NegotiatedMedia } from './types.ts'

type MediaDescription = sdpTransform.MediaDescription
type SessionDescription = sdpTransform.SessionDescription

const REVERSE: Record<Direction, Direction> = { sendrecv: 'sendrecv', sendonly: 'recvonly', recvonly: 'sendonly', inactive: 'inactive' }

function intersect(want: Direction, allowed: Direction): Direction {
  const send = (want === 'sendrecv' || want === 'sendonly') && (allowed === 'sendrecv' || allowed === 'sendonly')
  const recv = (want === 'sendrecv' || want === 'recvonly') && (allowed === 'sendrecv' || allowed === 'recvonly')
  return send && recv ? 'sendrecv' : send ? 'sendonly' : recv ? 'recvonly' : 'inactive'
}

/** Parses the peer's SDP; an address we must not send media to is refused (488) here, once for offers and answers. */
function parse(sdp: string): SessionDescription {
  if (typeof sdp !== 'string' || !/^v=0\r?\n/.test(sdp)) throw new SdpError(400, 'the body is not an SDP session description')
  let session: SessionDescription
  try {
    session = sdpTransform.parse(sdp)
  } catch (err) {
    throw new SdpError(400, `unparsable SDP: ${(err as Error).message}`)
  }
  const refused = mediaAddressProblem(session)
  if (refused) throw new SdpError(488, refused)
  return session
}

/** Why media must not go where this SDP (an offer in a re-INVITE or UPDATE) points; undefined when it may or it cannot be read. */
export function offeredAddressProblem(sdp: string): string | undefined {
  try {
    parse(sdp)
    return undefined
  } catch (err) {
    return err instanceof SdpError && err.status === 488 ? err.message : undefined
  }
}

function origin(opts: LocalMediaOptions) {
  return {
    username: '-',
    sessionId: opts.sessionId ?? Math.floor(Math.random() * 2 ** 31),
    sessionVersion: opts.sessionVersion ?? 1,
    netType: 'IN',
    ipVer: opts.address.includes(':') ? 6 : 4,
    address: opts.address,
  }
}

function audioMedia(
  opts: LocalMediaOptions,
  codecs: CodecSpec[],
  te: { payloadType: number; clockRate: number } | undefined,
  ptimeMs: number,
  direction: Direction,
  rtcpMux: boolean,
  secure?: { protocol: string; crypto: MediaDescription['crypto'] },
): MediaDescription {
  const rtp: MediaDescription['rtp'] = codecs.map((c) => ({ payload: c.payloadType, codec: c.name, rate: c.clockRate, encoding: c.channels > 1 ? c.channels : undefined }))
  const fmtp: MediaDescription['fmtp'] = codecs.filter((c) => c.fmtp).map((c) => ({ payload: c.payloadType, config: c.fmtp! }))
  const payloads = codecs.map((c) => c.payloadType)
  if (te) {
    rtp.push({ payload: te.payloadType, codec: 'telephone-event', rate: te.clockRate })
    fmtp.push({ payload: te.payloadType, config: '0-16' })
    payloads.push(te.payloadType)
  }
  const m: MediaDescription = { type: 'audio', port: opts.port, protocol: secure?.protocol ?? 'RTP/AVP', payloads: payloads.join(' '), rtp, fmtp, ptime: ptimeMs, direction }
  if (rtcpMux) m.rtcpMux = 'rtcp-mux'
  if (secure?.crypto?.length) m.crypto = secure.crypto
  return m
}

function write(opts: LocalMediaOptions, media: MediaDescription[]): string {
  return sdpTransform.write({
    version: 0,
    origin: origin(opts),
    name: '-',
    connection: { version: opts.address.includes(':') ? 6 : 4, ip: opts.address },
    timing: { start: 0, stop: 0 },
    media,
  } as SessionDescription)
}

const policyOf = (opts: LocalMediaOptions): MediaEncryption => opts.encryption ?? 'none'

function suitesOf(opts: LocalMediaOptions): readonly SrtpSuite[] {
  const suites = opts.srtpSuites ?? DEFAULT_SRTP_SUITES
  if (!suites.length) throw new RangeError('srtpSuites is empty: no SRTP crypto suite to offer')
  return suites
}

/**
 * Our offer: every preferred codec, telephone-event, ptime, direction and rtcp-mux. With
 * encryption 'required' the stream is RTP/SAVP, with 'optional' RTP/AVP (best-effort SDES); both
 * carry one a=crypto line per suite (tags 1..n), each with a fresh key from the CSPRNG. Every
 * call makes new keys, so a re-offer (hold, unhold) made with it re-keys the call.
 */
export function createMediaOffer(opts: LocalMediaOptions): MediaOffer {
  const names = opts.codecs ?? ['PCMU', 'PCMA']
  const ptimeMs = opts.ptimeMs ?? 20
  const codecs = names.map((n) => CODEC_DEFAULTS[n])
  const te = opts.telephoneEvent === false ? undefined : { payloadType: TELEPHONE_EVENT_PT, clockRate: 8000 }
  const policy = policyOf(opts)
  const srtp = policy === 'none' ? undefined : OfferedSrtp.generate(suitesOf(opts), generateInlineKey)
  const secure = srtp && {
    protocol: policy === 'required' ? 'RTP/SAVP' : 'RTP/AVP',
    crypto: srtp.lines.map(({ tag, suite }) => cryptoAttribute(tag, suite, srtp.keyFor(tag, suite)!)),
  }
  const sdp = write(opts, [audioMedia(opts, codecs, te, ptimeMs, opts.direction ?? 'sendrecv', opts.rtcpMux ?? true, secure)])
  return srtp ? { sdp, srtp } : { sdp }
}

/**
 * Our offer as SDP text, for plain RTP (encryption 'none', the default). With SRTP the keys it
 * offers must reach acceptAnswer: use createMediaOffer; this throws rather than drop them.
 */
export function createOffer(opts: LocalMediaOptions): string {
  if (policyOf(opts) !== 'none') throw new TypeError(`createOffer cannot keep SRTP keys (encryption '${policyOf(opts)}'): use createMediaOffer and pass its result to acceptAnswer`)
  return createMediaOffer(opts).sdp
}

/** The codecs a remote m= line carries, matched to ours by name and rate (static PTs need no rtpmap). */
function remoteCodecs(m: MediaDescription): { codecs: CodecSpec[]; te: { payloadType: number; clockRate: number }[] } {
  const codecs: CodecSpec[] = []
  const te: { payloadType: number; clockRate: number }[] = []
  const pts = String(m.payloads ?? '').trim().split(/\s+/).filter(Boolean).map(Number)
  for (const pt of pts) {
    if (!Number.isInteger(pt) || pt < 0 || pt > 127) continue
    const map = m.rtp.find((r) => r.payload === pt)
    const name = map?.codec.toLowerCase() ?? (pt === 0 ? 'pcmu' : pt === 8 ? 'pcma' : '')
    const rate = map?.rate ?? 8000
    if (name === 'pcmu' && rate === 8000) codecs.push({ ...CODEC_DEFAULTS.PCMU, payloadType: pt })
    else if (name === 'pcma' && rate === 8000) codecs.push({ ...CODEC_DEFAULTS.PCMA, payloadType: pt })
    else if (name === 'opus' && rate === 48000 && (map?.encoding === undefined || Number(map.encoding) === 2)) {
      codecs.push({ ...CODEC_DEFAULTS.opus, payloadType: pt })
    } else if (name === 'telephone-event') te.push({ payloadType: pt, clockRate: rate })
  }
  return { codecs, te }
}

function pickCodec(remote: CodecSpec[], opts: LocalMediaOptions): CodecSpec | undefined {
  const ours = opts.codecs ?? ['PCMU', 'PCMA']
  if (opts.preferenceOrder === 'remote') return remote.find((c) => ours.includes(c.name))
  for (const name of ours) {
    const hit = remote.find((c) => c.name === name)
    if (hit) return hit
  }
  return undefined
}

function checkPort(m: MediaDescription): void {
  if (!Number.isInteger(m.port) || m.port < 0 || m.port > 65535) throw new SdpError(400, `bad media port ${String(m.port)}`)
}

function connectionOf(session: SessionDescription, m: MediaDescription): string {
  const ip = m.connection?.ip ?? session.connection?.ip
  if (!ip) throw new SdpError(400, 'no c= line at session or media level')
  return ip.split('/')[0]!
}

function negotiated(
  session: SessionDescription,
  m: MediaDescription,
  codec: CodecSpec,
  te: NegotiatedMedia['telephoneEvent'],
  ptimeMs: number,
  direction: Direction,
  rtcpMux: boolean,
  srtp?: NegotiatedSrtp,
): NegotiatedMedia {
  const remoteAddress = connectionOf(session, m)
  const remoteDirection = (m.direction ?? session.direction ?? 'sendrecv') as Direction
  const media: NegotiatedMedia = {
    remoteAddress,
    remotePort: m.port,
    remoteRtcpPort: rtcpMux ? m.port : (m.rtcp?.port ?? m.port + 1),
    rtcpMux,
    codec,
    telephoneEvent: te,
    ptimeMs,
    direction,
    remoteHold: remoteDirection === 'sendonly' || remoteDirection === 'inactive' || remoteAddress === '0.0.0.0',
  }
  if (srtp) media.srtp = srtp
  return media
}

function choosePtime(m: MediaDescription, codec: CodecSpec, opts: LocalMediaOptions): number {
  const remote = m.ptime !== undefined ? Number(m.ptime) : undefined
  if (remote !== undefined && ptimeAllowed(codec.name, remote) && (m.maxptime === undefined || remote <= Number(m.maxptime))) return remote
  const ours = opts.ptimeMs ?? 20
  if (m.maxptime !== undefined && ours > Number(m.maxptime) && ptimeAllowed(codec.name, Number(m.maxptime))) return Number(m.maxptime)
  return ours
}

/**
 * Answers an offer: the first usable audio stream is accepted with one codec (plus
 * telephone-event), every other stream is rejected with port 0. Throws SdpError(488) when no
 * audio codec is in common, or the call's media encryption and the offer do not agree (the
 * message says why), SdpError(400) when the offer cannot be read.
 *
 * SRTP (see chooseOfferCrypto for the policy): we take the first offered a=crypto line we can
 * use and answer it with its tag and suite, our own fresh key and the offered profile. A re-offer
 * answered here gets a fresh key too: the media layer rebuilds its contexts from the new srtp.
 */
export function answerOffer(offer: string, opts: LocalMediaOptions): { sdp: string; media: NegotiatedMedia } {
  const session = parse(offer)
  if (!session.media?.length) throw new SdpError(488, 'the offer has no media stream')
  const policy = policyOf(opts)
  const suites = policy === 'none' ? [] : suitesOf(opts)
  const cryptoLines = policy === 'none' ? [] : cryptoLinesByMedia(offer)
  let accepted: NegotiatedMedia | undefined
  let refusal: string | undefined
  const answers: MediaDescription[] = []
  for (const [i, m] of session.media.entries()) {
    checkPort(m)
    const audio = !accepted && m.type === 'audio' && m.port > 0 && (isPlainProfile(m.protocol) || isSecureProfile(m.protocol))
    const choice = audio ? chooseOfferCrypto(m.protocol, cryptoLines[i] ?? [], policy, suites) : undefined
    if (choice?.kind === 'refuse') refusal ??= choice.reason
    const usable = choice !== undefined && choice.kind !== 'refuse'
    const { codecs, te } = usable ? remoteCodecs(m) : { codecs: [], te: [] }
    const codec = usable ? pickCodec(codecs, opts) : undefined
    if (!codec) {
      answers.push({ type: m.type, port: 0, protocol: m.protocol, payloads: m.payloads, rtp: [], fmtp: [] })
      continue
    }
    const teRate = codec.name === 'opus' ? [48000, 8000] : [8000]
    const event = opts.telephoneEvent === false ? undefined : teRate.map((r) => te.find((t) => t.clockRate === r)).find(Boolean)
    const ptimeMs = choosePtime(m, codec, opts)
    const remoteDir = (m.direction ?? session.direction ?? 'sendrecv') as Direction
    const direction = intersect(opts.direction ?? 'sendrecv', REVERSE[remoteDir])
    const rtcpMux = m.rtcpMux !== undefined && opts.rtcpMux !== false
    let srtp: NegotiatedSrtp | undefined
    let secure: Parameters<typeof audioMedia>[6]
    if (choice?.kind === 'srtp') {
      const { tag, suite, keys } = choice.crypto
      const ours = generateInlineKey(suite)
      srtp = new NegotiatedSrtp(suite, ours, keys[0]!.inline)
      secure = { protocol: m.protocol, crypto: [cryptoAttribute(tag, suite, ours)] }
    }
    accepted = negotiated(session, m, codec, event, ptimeMs, direction, rtcpMux, srtp)
    answers.push(audioMedia(opts, [codec], event, ptimeMs, direction, rtcpMux, secure))
  }
  if (!accepted) throw new SdpError(488, refusal ?? 'no audio codec in common (we accept PCMU, PCMA, opus/48000/2 over RTP/AVP)')
  return { sdp: write(opts, answers), media: accepted }
}

/** The SRTP an answer agrees to, read against the lines we offered; undefined for a plain answer we may take. */
function answeredSrtp(answer: string, index: number, m: MediaDescription, policy: MediaEncryption, offered: OfferedSrtp): NegotiatedSrtp | undefined {
  const lines = cryptoLinesByMedia(answer)[index] ?? []
  if (!lines.length) {
    if (policy === 'required') throw new SdpError(488, 'the answer carries no a=crypto line (plain RTP) and this call requires SRTP')
    if (isSecureProfile(m.protocol)) throw new SdpError(488, `the answer is ${m.protocol} without an a=crypto line`)
    return undefined
  }
  // RFC 4568 section 5.1.2: exactly one, the offered line the answerer chose
  if (lines.length > 1) throw new SdpError(488, `the answer carries ${lines.length} a=crypto lines; one is expected`)
  const c = lines[0]
  if (!c) throw new SdpError(488, "the answer's a=crypto line is malformed")
  const ours = offered.keyFor(c.tag, c.suite)
  const suite = c.suite.length > 40 ? `${c.suite.slice(0, 40)}...` : c.suite
  if (!ours) {
    const lines = offered.lines.map((l) => `${l.tag} ${l.suite}`).join(', ')
    throw new SdpError(488, `the answer's a=crypto ${c.tag} ${suite} matches no line we offered (${lines})`)
  }
  const why = unusableCryptoReason(c, offered.lines.map((l) => l.suite))
  if (why) throw new SdpError(488, `the answer's a=crypto ${c.tag} ${suite}: ${why}`)
  return new NegotiatedSrtp(c.suite as SrtpSuite, ours, c.keys[0]!.inline)
}

/**
 * Reads the peer's answer to our offer; throws SdpError(488) if it picked nothing we offered.
 * With encryption 'optional' or 'required', `offer` is what createMediaOffer returned: the answer's
 * a=crypto line must name a tag and suite we offered, and its key becomes the receive key. Under
 * 'required' an answer without one is refused (488); under 'optional' it gives plain RTP.
 */
export function acceptAnswer(answer: string, opts: LocalMediaOptions, offer?: MediaOffer): NegotiatedMedia {
  const policy = policyOf(opts)
  if (policy !== 'none' && !offer?.srtp) throw new TypeError(`acceptAnswer needs the MediaOffer createMediaOffer returned (encryption '${policy}'): its SRTP keys read the answer`)
  const session = parse(answer)
  const index = session.media?.findIndex((x) => x.type === 'audio' && x.port > 0) ?? -1
  const m = index >= 0 ? session.media[index] : undefined
  if (!m) throw new SdpError(488, 'the answer rejected the audio stream')
  checkPort(m)
  const { codecs, te } = remoteCodecs(m)
  const offered = opts.codecs ?? ['PCMU', 'PCMA']
  const codec = codecs.find((c) => offered.includes(c.name))
  if (!codec) throw new SdpError(488, 'the answer holds no codec we offered')
  const srtp = policy === 'none' ? undefined : answeredSrtp(answer, index, m, policy, offer!.srtp!)
  const remoteDir = (m.direction ?? session.direction ?? 'sendrecv') as Direction
  const direction = intersect(opts.direction ?? 'sendrecv', REVERSE[remoteDir])
  const rtcpMux = m.rtcpMux !== undefined && opts.rtcpMux !== false
  return negotiated(session, m, codec, te[0], choosePtime(m, codec, opts), direction, rtcpMux, srtp)
}
