// The appliance's end of a browser call: a werift peer connection that answers the browser's
// offer (ICE host candidates, DTLS-SRTP, Opus) and carries the call's audio as a MediaLink.
import { MediaStreamTrack, RTCPeerConnection, RTCRtpCodecParameters, type RTCRtpTransceiver } from './werift.ts'
import type { MediaLinkFactory } from '../media/index.ts'
import type { NegotiatedMedia } from '../telephony/sdp/index.ts'
import { webrtcLink } from './link.ts'
import { CandidateGate, candidatePolicyOf } from './candidates.ts'
import { admitsRemote, CONNECT_TIMEOUT, WebRtcOfferError, type WebRtcOptions } from './options.ts'
import { negotiatedOf } from './negotiated.ts'
import { reportSocketErrors } from './sockets.ts'

export interface TrickleCandidate {
  candidate: string
  sdpMid?: string | null
  sdpMLineIndex?: number | null
}

export type PeerState = 'connecting' | 'connected' | 'ended'

const GATHER_LIMIT_MS = 3000

const CODECS = {
  audio: [
    new RTCRtpCodecParameters({ mimeType: 'audio/opus', clockRate: 48000, channels: 2, parameters: 'minptime=10;useinbandfec=1' }),
    new RTCRtpCodecParameters({ mimeType: 'audio/telephone-event', clockRate: 8000 }),
  ],
}

export class WebPeer {
  readonly answerSdp: string
  readonly media: NegotiatedMedia
  readonly link: MediaLinkFactory
  private state: PeerState = 'connecting'
  private readonly endListeners: ((reason: string) => void)[] = []
  private readonly connectListeners: (() => void)[] = []
  /** Errors its UDP sockets reported (ICMP from a browser that went away), which end nothing by themselves. */
  socketErrors = 0
  /** How many UDP sockets it listens on for those errors. */
  readonly guardedSockets: number
  /** A candidate pair succeeded at some point: a failure after it is DTLS's, not ICE's. */
  private iceConnected = false

  private constructor(
    private readonly pc: RTCPeerConnection,
    transceiver: RTCRtpTransceiver,
    answerSdp: string,
    media: NegotiatedMedia,
    /** The call's remote candidates, offered and trickled, against the address rules and the cap. */
    readonly candidates: CandidateGate,
  ) {
    this.answerSdp = answerSdp
    this.media = media
    this.link = webrtcLink(transceiver)
    this.guardedSockets = reportSocketErrors(pc, () => this.socketErrors++)
    pc.iceConnectionStateChange.subscribe((s) => {
      if (s === 'connected' || s === 'completed') this.iceConnected = true
    })
    pc.connectionStateChange.subscribe((s) => {
      if (s === 'connected' && this.state === 'connecting') {
        this.state = 'connected'
        for (const l of this.connectListeners) l()
      }
      if (s === 'failed' || s === 'closed' || s === 'disconnected') this.end(s === 'failed' ? this.failure() : 'remote_hangup')
    })
    // a browser's close() sends a DTLS close_notify: the caller hung up
    transceiver.dtlsTransport?.onStateChange.subscribe((s) => s === 'closed' && this.end('remote_hangup'))
  }

  /** Answers `offerSdp`; the answer carries every host candidate (no trickle needed from us). */
  static async answer(offerSdp: string, options: WebRtcOptions): Promise<WebPeer> {
    const candidates = new CandidateGate(candidatePolicyOf(options))
    const pc = new RTCPeerConnection({
      codecs: CODECS,
      iceServers: options.iceServers,
      icePortRange: options.portRange,
      // an explicit list replaces the interface scan; werift adds it to IPv4 interfaces otherwise
      iceUseIpv4: options.hostAddresses.length === 0,
      iceUseIpv6: false,
      iceAdditionalHostAddresses: options.hostAddresses,
      iceFilterStunResponse: (_m, addr) => admitsRemote(options, addr[0]),
      iceFilterCandidatePair: (pair) => admitsRemote(options, pair.remoteCandidate.host),
    })
    try {
      await pc.setRemoteDescription({ type: 'offer', sdp: candidates.filterSdp(offerSdp) })
      const transceiver = pc.getTransceivers().find((t) => t.kind === 'audio')
      if (!transceiver) throw new WebRtcOfferError('the offer has no audio section')
      transceiver.setDirection('sendrecv')
      await transceiver.sender.replaceTrack(new MediaStreamTrack({ kind: 'audio' }))
      await pc.setLocalDescription(await pc.createAnswer())
      await gathered(pc)
      const sdp = pc.localDescription?.sdp
      if (!sdp) throw new WebRtcOfferError('no answer could be made')
      return new WebPeer(pc, transceiver, sdp, negotiatedOf(offerSdp, sdp), candidates)
    } catch (err) {
      await pc.close().catch(() => {})
      if (err instanceof WebRtcOfferError) throw err
      throw new WebRtcOfferError(`the offer could not be answered: ${(err as Error).message}`)
    }
  }

  get connectionState(): PeerState {
    return this.state
  }

  /** A candidate the browser trickled after its offer; `null` ends its candidates. */
  async addCandidate(c: TrickleCandidate | null): Promise<void> {
    if (this.state === 'ended' || (c && !this.candidates.admit(c.candidate))) return
    await this.pc.addIceCandidate(c === null ? null : { candidate: c.candidate, sdpMid: c.sdpMid ?? undefined, sdpMLineIndex: c.sdpMLineIndex ?? undefined })
  }

  onConnected(fn: () => void): void {
    if (this.state === 'connected') fn()
    else this.connectListeners.push(fn)
  }

  onEnded(fn: (reason: string) => void): void {
    this.endListeners.push(fn)
  }

  /**
   * Ends the peer (DTLS close alert, sockets freed); the listeners hear `reason`, or with
   * CONNECT_TIMEOUT before it connected, why it did not: ice_failed or dtls_failed.
   */
  close(reason = 'local_hangup'): void {
    this.end(reason === CONNECT_TIMEOUT && this.state === 'connecting' ? this.failure() : reason)
  }

  /** Why a peer that did not connect failed: no candidate pair succeeded, or DTLS did not finish after one did. */
  private failure(): 'ice_failed' | 'dtls_failed' {
    return this.iceConnected || this.pc.iceConnectionState === 'connected' || this.pc.iceConnectionState === 'completed' ? 'dtls_failed' : 'ice_failed'
  }

  private end(reason: string): void {
    if (this.state === 'ended') return
    this.state = 'ended'
    void this.pc.close().catch(() => {})
    for (const l of this.endListeners) l(reason)
  }
}

async function gathered(pc: RTCPeerConnection): Promise<void> {
  if (pc.iceGatheringState === 'complete') return
  await new Promise<void>((resolve) => {
    const limit = setTimeout(done, GATHER_LIMIT_MS)
    const sub = pc.iceGatheringStateChange.subscribe((s) => s === 'complete' && done())
    function done() {
      clearTimeout(limit)
      sub.unSubscribe()
      resolve()
    }
  })
}
