// SDP offer/answer for one audio stream (RFC 3264) on top of sdp-transform. Pure: strings in,
// strings and negotiated parameters out.

import * as sdpTransform from 'sdp-transform'
import { CODEC_DEFAULTS, ptimeAllowed, TELEPHONE_EVENT_PT, type CodecName, type CodecSpec, type Direction } from './codecs.ts'
import { mediaAddressProblem } from './media-address.ts'

type MediaDescription = sdpTransform.MediaDescription
type SessionDescription = sdpTransform.SessionDescription

/** Negotiation failure; `status` is the SIP response code to send (400 or 488). */
export class SdpError extends Error {
  constructor(
    readonly status: 400 | 488,
    message: string,
  ) {
    super(message)
  }
  get reason(): string {
    return this.status === 488 ? 'Not Acceptable Here' : 'Bad Request'
  }
}

export interface LocalMediaOptions {
  /** Our IP address for c= and o=. */
  address: string
  /** Our RTP port. */
  port: number
  /** Codec preference, most wanted first. */
  codecs?: CodecName[]
  /** Whose order picks the codec when both offer several: ours (default) or the offerer's. */
  preferenceOrder?: 'local' | 'remote'
  ptimeMs?: number
  /** The direction we want, before the peer's is taken into account. */
  direction?: Direction
  telephoneEvent?: boolean
  rtcpMux?: boolean
  sessionId?: number
  sessionVersion?: number
}

export interface NegotiatedMedia {
  remoteAddress: string
  remotePort: number
  remoteRtcpPort: number
  rtcpMux: boolean
  codec: CodecSpec
  telephoneEvent?: { payloadType: number; clockRate: number }
  /** Packet time we send with, in ms. */
  ptimeMs: number
  /** From our side: sendrecv means we both send and receive. */
  direction: Direction
  /** The peer holds the call (it sends sendonly/inactive or c=0.0.0.0). */
  remoteHold: boolean
}

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

function audioMedia(opts: LocalMediaOptions, codecs: CodecSpec[], te: { payloadType: number; clockRate: number } | undefined, ptimeMs: number, direction: Direction, rtcpMux: boolean): MediaDescription {
  const rtp: MediaDescription['rtp'] = codecs.map((c) => ({ payload: c.payloadType, codec: c.name, rate: c.clockRate, encoding: c.channels > 1 ? c.channels : undefined }))
  const fmtp: MediaDescription['fmtp'] = codecs.filter((c) => c.fmtp).map((c) => ({ payload: c.payloadType, config: c.fmtp! }))
  const payloads = codecs.map((c) => c.payloadType)
  if (te) {
    rtp.push({ payload: te.payloadType, codec: 'telephone-event', rate: te.clockRate })
    fmtp.push({ payload: te.payloadType, config: '0-16' })
    payloads.push(te.payloadType)
  }
  const m: MediaDescription = { type: 'audio', port: opts.port, protocol: 'RTP/AVP', payloads: payloads.join(' '), rtp, fmtp, ptime: ptimeMs, direction }
  if (rtcpMux) m.rtcpMux = 'rtcp-mux'
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

/** Our offer: every preferred codec, telephone-event, ptime, direction and rtcp-mux. */
export function createOffer(opts: LocalMediaOptions): string {
  const names = opts.codecs ?? ['PCMU', 'PCMA']
  const ptimeMs = opts.ptimeMs ?? 20
  const codecs = names.map((n) => CODEC_DEFAULTS[n])
  const te = opts.telephoneEvent === false ? undefined : { payloadType: TELEPHONE_EVENT_PT, clockRate: 8000 }
  return write(opts, [audioMedia(opts, codecs, te, ptimeMs, opts.direction ?? 'sendrecv', opts.rtcpMux ?? true)])
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

function negotiated(session: SessionDescription, m: MediaDescription, codec: CodecSpec, te: NegotiatedMedia['telephoneEvent'], ptimeMs: number, direction: Direction, rtcpMux: boolean): NegotiatedMedia {
  const remoteAddress = connectionOf(session, m)
  const remoteDirection = (m.direction ?? session.direction ?? 'sendrecv') as Direction
  return {
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
 * audio codec is in common, SdpError(400) when the offer cannot be read.
 */
export function answerOffer(offer: string, opts: LocalMediaOptions): { sdp: string; media: NegotiatedMedia } {
  const session = parse(offer)
  if (!session.media?.length) throw new SdpError(488, 'the offer has no media stream')
  let accepted: NegotiatedMedia | undefined
  const answers: MediaDescription[] = []
  for (const m of session.media) {
    checkPort(m)
    const usable = !accepted && m.type === 'audio' && m.port > 0 && /^RTP\/AVPF?$/i.test(m.protocol)
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
    accepted = negotiated(session, m, codec, event, ptimeMs, direction, rtcpMux)
    answers.push(audioMedia(opts, [codec], event, ptimeMs, direction, rtcpMux))
  }
  if (!accepted) throw new SdpError(488, 'no audio codec in common (we accept PCMU, PCMA, opus/48000/2 over RTP/AVP)')
  return { sdp: write(opts, answers), media: accepted }
}

/** Reads the peer's answer to our offer; throws SdpError(488) if it picked nothing we offered. */
export function acceptAnswer(answer: string, opts: LocalMediaOptions): NegotiatedMedia {
  const session = parse(answer)
  const m = session.media?.find((x) => x.type === 'audio' && x.port > 0)
  if (!m) throw new SdpError(488, 'the answer rejected the audio stream')
  checkPort(m)
  const { codecs, te } = remoteCodecs(m)
  const offered = opts.codecs ?? ['PCMU', 'PCMA']
  const codec = codecs.find((c) => offered.includes(c.name))
  if (!codec) throw new SdpError(488, 'the answer holds no codec we offered')
  const remoteDir = (m.direction ?? session.direction ?? 'sendrecv') as Direction
  const direction = intersect(opts.direction ?? 'sendrecv', REVERSE[remoteDir])
  const rtcpMux = m.rtcpMux !== undefined && opts.rtcpMux !== false
  return negotiated(session, m, codec, te[0], choosePtime(m, codec, opts), direction, rtcpMux)
}
