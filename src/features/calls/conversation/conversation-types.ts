// What a live call (SIP and the call row, on the main thread) asks of the part that carries its
// audio and conversation (media, voice session, brain), wherever that runs: in this thread or
// in a call worker. Everything crossing this line is plain data, so it can cross a thread.
import type { AgentSnapshot } from '../../agents/index.ts'
import type { MediaLinkFactory } from '../../../realtime/media/index.ts'
import type { TrickleCandidate, WebRtcOptions } from '../../../realtime/webrtc/index.ts'
import type { NegotiatedMedia } from '../../../realtime/telephony/sdp/index.ts'
import type { EndReason, SessionReport, TranscriptItem } from '../../../realtime/voice/session/index.ts'
import type { TurnLatency } from '../../../realtime/voice/turn/metrics.ts'
import type { WorkflowGraph } from '../../workflows/call/index.ts'
import type { AnswerGate } from '../calls.service.ts'
import type { KnowledgePassage, KnowledgeQueryOptions, TransferOutcome } from './tools.ts'
import type { MediaFacts } from './media-facts.ts'

export interface ConversationInit {
  callId: string
  media: NegotiatedMedia
  /** The SIP peer's address: its media may come from there too. */
  trustedAddresses: string[]
  agent: AgentSnapshot
  variables: Record<string, string>
  /** The agent's workflow, read by the main thread (undefined: LLM or no brain). */
  graph: WorkflowGraph | undefined
}

/** What the brain chose, for the call log. */
export interface AnsweredInfo {
  brain: string
  llm?: string
  tts: string
  stt?: string
  fallbacks: string[]
}

/** Events of a conversation, delivered on the main thread. */
export interface ConversationEvents {
  answered(info: AnsweredInfo): void
  /** The session is over (said goodbye, timed out, failed); hang up unless transferred. */
  hangup(reason: EndReason): void
  /** The answer gate decided the call ends. */
  gateHangup(): void
  providerFailed(provider: string, error: string): void
  /** A caller turn was committed; `turn` numbers it from 1 in the call. */
  turn(text: string, latency: TurnLatency, turn: number): void
  /** Turn `turn`'s latencies filled in as its answer started (what the call record will keep). */
  turnMeasured(turn: number, latency: TurnLatency): void
  /** A line joined the transcript: kept by the main thread in case the call's worker dies. */
  transcribed(item: TranscriptItem): void
  transfer(target: string): Promise<TransferOutcome>
  optOut(): Promise<void>
  /** Searches the agent's knowledge bases (the database lives on the main thread). */
  searchKnowledge(query: string, opts: KnowledgeQueryOptions): Promise<KnowledgePassage[]>
  /** The thread carrying the call died: its media and session are gone. */
  failed(reason: string): void
}

export interface ConversationResult {
  recording?: { path: string; durationMs: number }
  /** What the call's media did (the record's media field). */
  media?: MediaFacts
  rtp?: { packetsReceived: number; packetsSent: number; packetsLost: number; jitterMs: number; srtp?: { authFailures: number; replays: number; malformed: number } }
  /** Present when the voice session ran. */
  session?: { report: SessionReport; brain: string; llmModel: string; ttsProvider: string; sttProvider: string }
}

/** A supervisor's action carried out by the call's audio and conversation (hangup and transfer are the dialog's, on the main thread). */
export type MediaAction =
  | { type: 'say'; text: string }
  | { type: 'note'; text: string }
  | { type: 'hold' }
  | { type: 'resume' }
  | { type: 'mute_agent' }
  | { type: 'unmute_agent' }

/** How an action went: `refused` says why it could not be carried out (the API's 409). */
export type ActionResult = { ok: true } | { ok: false; refused: string }

export interface Conversation {
  /** A re-INVITE changed the media (hold, unhold, address). */
  update(media: NegotiatedMedia): void
  /** Digits that came by SIP INFO. */
  pushDtmf(digit: string): void
  /** The caller hung up, or a bridge took over the caller: the session ends without hanging up. */
  callerHungUp(): void
  /** Binds ports for a transfer leg; its RTP port goes into the leg's offer. */
  openLeg(): Promise<number>
  /** The leg answered: its media starts and is bridged to the caller. */
  connectLeg(media: NegotiatedMedia): Promise<void>
  /** Ends the leg's media and undoes the bridge. */
  closeLeg(): Promise<void>
  /** A supervisor's action; resolves once done (a `say` once spoken). */
  act(action: MediaAction): Promise<ActionResult>
  /** Stops everything: media closed (RTCP BYE), recording finalised, the session's report. */
  close(): Promise<ConversationResult>
}

/** A browser's WebRTC leg, answered in the thread where its call will run. */
export interface WebLeg {
  /** Our SDP answer, with every host candidate. */
  readonly sdp: string
  readonly media: NegotiatedMedia
  /** ICE and DTLS are up (at once if they already are). */
  onConnected(fn: () => void): void
  /** The peer ended: `remote_hangup`, `ice_failed`, or the reason it was closed with. */
  onEnded(fn: (reason: string) => void): void
  addCandidate(c: TrickleCandidate | null): Promise<void>
  close(reason: string): void
}

/** Ports bound for a call before its SDP is written; `start` runs the call on them. */
export interface CallPlacement {
  readonly port: number
  /** Where the call runs, for logs and tests: 'main' or the worker's index. */
  readonly where: string
  /** A placement for a web call: answers the browser's offer where the call will run. */
  answerWeb?(offer: string, options: WebRtcOptions): Promise<WebLeg>
  start(init: ConversationInit, events: ConversationEvents, gate?: AnswerGate): Promise<Conversation>
  /** Frees the ports of a call that never started. */
  release(): void
}

export interface PlaceOptions {
  inProcess?: boolean
  link?: MediaLinkFactory
  /** A browser call: no RTP ports; the placement answers the offer (`answerWeb`) where the call runs. */
  web?: boolean
}

export interface CallPlacer {
  /**
   * Binds ports where the call will run. `inProcess` keeps it on this thread (answer gates hear
   * frames here); so does `link`, a leg whose packets travel its own way (WebRTC, media stream).
   */
  place(opts?: PlaceOptions): Promise<CallPlacement>
  readonly activeWorkers?: number
  stop(): Promise<void>
}

/** The call worker carrying a call died or could not start it. */
export class CallWorkerFailed extends Error {}
