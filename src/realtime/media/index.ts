// The media engine's public face: RTP/RTCP, codecs, jitter buffer, DTMF, recording and the
// per-call audio surface for the voice engine.
export { MediaEngine, type MediaEngineConfig } from './engine.ts'
export { MediaClock, type Subscription, type TickHandler } from './clock.ts'
export { CallMedia, ENGINE_RATE, FRAME_MS, FRAME_SAMPLES, OutputQueue, PacingHistogram, type CallMediaOptions, type CallMediaStats, type PlaybackHandle, type PlaybackResult } from './call/index.ts'
export { packetCountStats, type MediaLink, type MediaLinkFactory, type MediaLinkHandlers } from './call/index.ts'
export type { DtmfEvent } from './dtmf/index.ts'
export { repairWavFiles, StereoRecorder } from './recorder/index.ts'
export { RtpPortPool, PortPoolExhaustedError, type BoundPorts } from './rtp/index.ts'
