// One caller turn, whatever carries it: every 20 ms a frame goes out, line noise until the caller
// speaks, then the utterance, then line noise while the agent answers. The caller speaks once the
// agent's greeting is over (understanding) or a set time into it (barge-in), and hangs up once
// the agent's reply is over, or after a while without one. Times are the caller's own clock.
import { absNow } from '../conversation/caller.ts'
import type { AgentEar } from '../conversation/ear.ts'

/** The greeting (or a reply) is over once the agent has been quiet this long (flite pauses up to ~360 ms between sentences). */
export const QUIET_MS = 1200
/** No greeting heard in this long: the caller speaks anyway. */
const NO_GREETING_MS = 20_000
/** No reply this long after the caller's last word: the caller hangs up. */
export const NO_REPLY_MS = 10_000
/** A reply still going after this long: the caller hangs up. */
const MAX_REPLY_MS = 45_000
/** Barge-in: how long the caller listens after its words, to see the agent stop for good or go on. */
export const LISTEN_AFTER_MS = 3000

/** `untilQuiet`: after its words the caller listens until the agent has been quiet QUIET_MS (the welcome's end, or a stop), not LISTEN_AFTER_MS. */
export type Start = 'after_greeting' | { intoAgentMs: number; untilQuiet?: boolean }

export interface TurnLog {
  answeredAt: number
  /** The caller's first and last loud frames as sent (the words, not the noise under them). */
  firstLoudAt: number
  lastLoudAt: number
  /** The agent's first voiced frame after the caller's words, if any. */
  replyAt?: number
  endedAt: number
  outcome: 'replied' | 'no_reply' | 'reply_too_long' | 'heard' | 'agent_hung_up'
  /** The agent's audio as heard: arrival time and level of every 20 ms frame. */
  rx: { at: number[]; db: number[] }
  /** The caller's frames that were due more than 60 ms late (its process off the CPU). */
  lateFrames: number
}

export interface TurnOptions {
  /** The caller's audio in 20 ms frames, and which of them are the words (loud). */
  frames: Int16Array[]
  loud: boolean[]
  start: Start
  /** Sends the frame for slot `seq` (the utterance's, or undefined for line noise). */
  send(frame: Int16Array | undefined, seq: number): void
}

export interface TurnRun {
  done: Promise<void>
  /** The agent hung up. */
  stop(): void
}

/** Speaks `o.frames` once; `log.answeredAt` must be set. */
export function speakTurn(o: TurnOptions, ear: AgentEar, log: TurnLog): TurnRun {
  let phase: 'waiting' | 'speaking' | 'listening' = 'waiting'
  let index = 0
  let seq = 0
  let over = false
  let finish!: () => void
  const done = new Promise<void>((r) => (finish = r))
  let timer: ReturnType<typeof setTimeout> | undefined
  const end = (outcome: TurnLog['outcome']) => {
    if (over) return
    over = true
    log.outcome = outcome
    log.endedAt = absNow()
    clearTimeout(timer)
    finish()
  }
  const shouldSpeak = (now: number) => {
    const heard = ear.firstVoicedAfter(log.answeredAt)
    if (heard === undefined) return now - log.answeredAt >= NO_GREETING_MS
    if (o.start !== 'after_greeting') return now >= heard + o.start.intoAgentMs
    return now - ear.lastVoicedAt! >= QUIET_MS
  }
  const tick = (now: number, lateMs: number) => {
    if (lateMs > 60) log.lateFrames++
    if (phase === 'waiting' && shouldSpeak(now)) phase = 'speaking'
    if (phase === 'speaking') {
      if (o.loud[index]) {
        log.firstLoudAt ||= now
        log.lastLoudAt = now
      }
      o.send(o.frames[index++], seq++)
      if (index >= o.frames.length) phase = 'listening'
      return
    }
    o.send(undefined, seq++)
    if (phase !== 'listening') return
    const words = log.lastLoudAt || now
    const reply = ear.firstVoicedAfter(words)
    if (reply !== undefined) log.replyAt ??= reply
    if (o.start !== 'after_greeting') {
      const quiet = !o.start.untilQuiet || now - Math.max(words, ear.lastVoicedAt ?? 0) >= QUIET_MS
      if ((now - words >= LISTEN_AFTER_MS && quiet) || now - words >= MAX_REPLY_MS) end('heard')
    } else if (reply === undefined) {
      if (now - words >= NO_REPLY_MS) end('no_reply')
    } else if (now - reply >= MAX_REPLY_MS) end('reply_too_long')
    else if (now - ear.lastVoicedAt! >= QUIET_MS) end('replied')
  }
  const origin = performance.now()
  let k = 0
  const loop = () => {
    while (!over && origin + k * 20 <= performance.now()) {
      tick(absNow(), performance.now() - (origin + k * 20))
      k++
    }
    if (!over) timer = setTimeout(loop, Math.max(0, origin + k * 20 - performance.now()))
  }
  loop()
  return { done, stop: () => end('agent_hung_up') }
}

export const newTurnLog = (): TurnLog => ({ answeredAt: 0, firstLoudAt: 0, lastLoudAt: 0, endedAt: 0, outcome: 'agent_hung_up', rx: { at: [], db: [] }, lateFrames: 0 })

/** Notes 20 ms of the agent's audio heard at `at`. */
export function hear(log: TurnLog, ear: AgentEar, at: number, db: number): void {
  log.rx.at.push(Math.round(at * 10) / 10)
  log.rx.db.push(Math.max(-120, Math.round(db * 10) / 10))
  ear.hear(at, db)
}
