// The media engine of the appliance: the RTP port pool, the shared media clock, codec
// preference and the recordings folder. The SIP layer asks it for ports before it writes SDP
// and for a CallMedia once the offer/answer is done.

import { mkdir } from 'node:fs/promises'
import { join } from 'node:path'
import { mediaPacerProblem, parseSrtpSuiteList } from '../../platform/config/index.ts'
import { isSrtpSuite, type SrtpSuite } from '../srtp/index.ts'
import { DEFAULT_SRTP_SUITES, parseCodecList, ptimeAllowed, type CodecName, type LocalMediaOptions, type NegotiatedMedia } from '../telephony/sdp/index.ts'
import { CallMedia, type CallMediaOptions, type MediaLinkFactory } from './call/index.ts'
import { MediaClock } from './clock.ts'
import { Pacer } from './pacer/index.ts'
import { opusAvailable } from './codec/index.ts'
import { repairWavFiles, StereoRecorder } from './recorder/index.ts'
import { RtpPortPool, type BoundPorts } from './rtp/index.ts'

export interface MediaEngineConfig {
  RTP_PORT_MIN: number
  RTP_PORT_MAX: number
  DATA_DIR: string
  MEDIA_CODECS?: string
  MEDIA_PTIME_MS?: number
  JITTER_MAX_MS?: number
  /** RTP_TIMEOUT_MS: quiet this long (not on hold) ends a call that handles onMediaTimeout. */
  RTP_TIMEOUT_MS?: number
  RECORD_CALLS?: boolean
  /** Comma-separated SDES suites, most preferred first (SRTP_SUITES); the defaults when absent. */
  SRTP_SUITES?: string
  /** Who puts RTP on the wire: a pacer thread at real-time priority, an ordinary one, or the media thread (the default here). */
  MEDIA_PACER?: string
  /** How far ahead of its slot a paced packet is prepared, in ms. */
  MEDIA_PACER_LEAD_MS?: number
}

/** SCHED_FIFO priority of a real-time pacer: above ordinary threads, below the kernel's own. */
const PACER_PRIORITY = 10

export class MediaEngine {
  readonly pool: RtpPortPool
  readonly clock = new MediaClock()
  readonly recordingsDir: string
  readonly codecs: CodecName[]
  readonly srtpSuites: readonly SrtpSuite[]
  private readonly calls = new Set<CallMedia>()
  /** The pacer thread once start() ran, unless MEDIA_PACER is off. */
  pacer: Pacer | undefined
  private pacerFailure = ''

  constructor(
    private readonly config: MediaEngineConfig,
    options: { bindHost?: string } = {},
  ) {
    this.pool = new RtpPortPool(config.RTP_PORT_MIN, config.RTP_PORT_MAX, options.bindHost ?? '0.0.0.0', () => this.clock.sendDue())
    this.recordingsDir = join(config.DATA_DIR, 'recordings')
    const wanted = parseCodecList(config.MEDIA_CODECS ?? 'PCMU,PCMA,opus')
    this.codecs = wanted.filter((c) => c !== 'opus' || opusAvailable())
    if (this.codecs.length === 0) throw new RangeError('no usable codec: MEDIA_CODECS lists only opus, which is not built')
    this.srtpSuites = config.SRTP_SUITES ? parseSrtpSuiteList(config.SRTP_SUITES).filter(isSrtpSuite) : DEFAULT_SRTP_SUITES
    if (this.srtpSuites.length === 0) throw new RangeError('no usable SRTP suite: SRTP_SUITES names none we implement')
    const pacerProblem = config.MEDIA_PACER === undefined ? undefined : mediaPacerProblem(config.MEDIA_PACER)
    if (pacerProblem) throw new RangeError(pacerProblem)
    const ptime = config.MEDIA_PTIME_MS ?? 20
    if (!ptimeAllowed('PCMU', ptime)) throw new RangeError(`MEDIA_PTIME_MS must be 10, 20, ... 60, got ${ptime}`)
  }

  /** Creates the recordings folder, repairs recordings a crash left open and starts the pacer. */
  async start(): Promise<{ repaired: string[] }> {
    await mkdir(this.recordingsDir, { recursive: true, mode: 0o700 })
    await this.startPacer()
    return { repaired: await repairWavFiles(this.recordingsDir) }
  }

  /** Why the pacer runs below what MEDIA_PACER asked for, for the operator's log; undefined when it does not. */
  pacerWarning(): string | undefined {
    if (this.pacerFailure) return `MEDIA_PACER=${this.config.MEDIA_PACER}: ${this.pacerFailure}; the media threads send RTP themselves`
    if (this.config.MEDIA_PACER !== 'realtime' || this.pacer?.mode !== 'thread') return undefined
    return 'MEDIA_PACER=realtime: the process may not ask for real-time priority (it needs CAP_SYS_NICE or an rtprio limit), so RTP is paced from an ordinary thread and a busy machine can make packets late'
  }

  /** Starts the pacer thread MEDIA_PACER asks for (a call worker's engine does only this). */
  async startPacer(): Promise<void> {
    const mode = this.config.MEDIA_PACER ?? 'off'
    if (mode === 'off' || this.pacer) return
    try {
      this.pacer = await Pacer.start({ priority: mode === 'realtime' ? PACER_PRIORITY : 0, leadMs: this.config.MEDIA_PACER_LEAD_MS ?? 6 })
    } catch (err) {
      // pacing is how packets leave on time, not whether calls work: they go on without it
      this.pacerFailure = err instanceof Error ? err.message : String(err)
    }
  }

  /** SDP options for our side of a call on `ports`. */
  sdpOptions(address: string, ports: Pick<BoundPorts, 'port'>): LocalMediaOptions {
    return { address, port: ports.port, codecs: this.codecs, ptimeMs: this.config.MEDIA_PTIME_MS ?? 20, srtpSuites: this.srtpSuites }
  }

  allocatePorts(): Promise<BoundPorts> {
    return this.pool.bind()
  }

  /**
   * Starts the media of a negotiated call on its UDP ports (SIP) or another leg's link (WebRTC,
   * media stream); the recording (if on) is DATA_DIR/recordings/<callId>.wav.
   */
  async startCall(
    callId: string,
    where: BoundPorts | MediaLinkFactory,
    media: NegotiatedMedia,
    options: Omit<CallMediaOptions, 'ports' | 'link' | 'clock' | 'media' | 'recorder'> = {},
  ): Promise<CallMedia> {
    if (!/^[A-Za-z0-9_-]{1,100}$/.test(callId)) throw new RangeError(`call id ${JSON.stringify(callId)} is not usable as a file name`)
    const recorder = this.config.RECORD_CALLS === false ? undefined : await StereoRecorder.create(join(this.recordingsDir, `${callId}.wav`))
    const call = new CallMedia({
      ...options,
      ...(typeof where === 'function' ? { link: where } : { ports: where }),
      clock: this.clock,
      pacer: this.pacer,
      media,
      recorder,
      jitter: { maxDelayMs: this.config.JITTER_MAX_MS ?? 200, ...options.jitter },
      rtpTimeoutMs: options.rtpTimeoutMs ?? this.config.RTP_TIMEOUT_MS ?? 0,
      onClosed: () => {
        this.calls.delete(call)
        options.onClosed?.()
      },
    })
    this.calls.add(call)
    return call
  }

  get activeCalls(): number {
    return this.calls.size
  }

  /** Ends every call's media (recordings finalised). */
  async stop(): Promise<void> {
    try {
      await Promise.allSettled([...this.calls].map((c) => c.close()))
    } finally {
      await this.pacer?.stop()
      this.pacer = undefined
    }
  }
}
