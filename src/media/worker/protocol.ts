// Messages between the main thread and a media worker. Audio crosses as transferred buffers.

import type { NegotiatedMedia } from '../../telephony/sdp/index.ts'
import type { CallMediaStats } from '../call/index.ts'
import type { DtmfEvent } from '../dtmf/index.ts'
import type { PlaybackResult } from '../call/output-queue.ts'
import type { MediaEngineConfig } from '../engine.ts'

export interface StartOptions {
  trustedAddresses?: string[]
  jitter?: { minDelayMs?: number; maxDelayMs?: number }
  inbandDtmf?: boolean
}

export type ToWorker =
  | { type: 'init'; config: MediaEngineConfig; bindHost: string }
  | { type: 'allocate'; req: number }
  | { type: 'release'; port: number }
  | { type: 'start'; req: number; cid: number; callId: string; port: number; media: NegotiatedMedia; options: StartOptions }
  | { type: 'play'; cid: number; pid: number; pcm: Int16Array }
  | { type: 'flush'; cid: number }
  | { type: 'dtmf'; cid: number; digits: string; durationMs: number }
  | { type: 'update'; cid: number; media: NegotiatedMedia }
  | { type: 'close'; req: number; cid: number }

export type FromWorker =
  | { type: 'reply'; req: number; error?: string; port?: number; result?: unknown }
  /** One per media tick: the frames played out, and each busy call's queue and current item. */
  | { type: 'tick'; cids: Int32Array; frames: Int16Array; progress: number[] }
  | { type: 'played'; cid: number; pid: number; result: PlaybackResult }
  | { type: 'dtmf'; cid: number; event: DtmfEvent }
  | { type: 'bye'; cid: number }
  | { type: 'stats'; cids: number[]; stats: CallMediaStats[] }
