// The caller's side of a bench call, whatever carries it (SIP/RTP in phone.ts, WebRTC in
// web-phone.ts): one frame every 20 ms, the script's steps when a caller would speak (after the
// agent's answer is over, or a set time into the agent's utterance: an interruption, a
// backchannel), line noise between them. The transport only turns a frame into a packet.
import { frameDbfs, VOICED_DBFS } from './audio.ts'
import type { AgentEar } from './ear.ts'
import type { PhoneLog, StepLog } from './log.ts'
import type { CallerStep } from './script.ts'

/** The agent's answer is over once it has been quiet this long (longer than its pauses between sentences). */
export const QUIET_MS = 1000
/** No answer this long after a turn: the caller goes on (the turn is counted lost). */
const NO_ANSWER_MS = 10_000
/** An answer still going after this long: the caller goes on anyway. */
const MAX_ANSWER_MS = 40_000

export const absNow = () => performance.timeOrigin + performance.now()

export interface ScriptOptions {
  steps: CallerStep[]
  /** Each step's audio as 20 ms frames at 8 kHz (the voiced frames are judged on these). */
  audio: Int16Array[][]
  deadlineMs: number
}

/** What goes out in one 20 ms slot: frame `index` of step `step`, or line noise (`noise` counts the call's frames). */
export type Frame = { step: number; index: number } | { noise: number }

export interface CallerRun {
  /** Resolves when the script is over, the deadline passed or `stop` was called. */
  done: Promise<void>
  /** The far end hung up. */
  stop(): void
  /** Steps said to the end. */
  readonly stepsDone: number
}

/** Speaks `o.steps` from now on, `send`ing each slot's frame; `log.answeredAt` must be set. */
export function speakScript(o: ScriptOptions, log: PhoneLog, ear: AgentEar, send: (f: Frame, first: boolean) => void): CallerRun {
  let stepIdx = 0
  let frames: Int16Array[] | undefined
  let frameIdx = 0
  let current: StepLog | undefined
  /** When the caller's last turn ended (the agent's answer comes after it); at first, the call's answer. */
  let turnEnd = log.answeredAt
  const deadline = log.answeredAt + o.deadlineMs
  let seq = 0
  let finish!: () => void
  const done = new Promise<void>((r) => (finish = r))
  let timer: ReturnType<typeof setTimeout> | undefined
  let over = false

  // the agent's reply is whatever it says after the caller's turn (an answer begun while the
  // caller was still talking included), over once it has been quiet for QUIET_MS
  const trigger = (step: CallerStep | undefined, now: number): StepLog['trigger'] | undefined => {
    const heard = ear.firstVoicedAfter(turnEnd)
    if (heard === undefined) return now - turnEnd >= NO_ANSWER_MS ? 'no_answer' : undefined
    if (now - heard >= MAX_ANSWER_MS) return 'timeout'
    if (step && step.start !== 'after_answer') return now >= heard + step.start.intoAgentMs ? 'into_agent' : undefined
    return now - ear.lastVoicedAt! >= QUIET_MS ? 'after_answer' : undefined
  }

  const tick = (now: number, lateMs: number): boolean => {
    if (!frames) {
      const step = o.steps[stepIdx]
      const why = trigger(step, now)
      if (!step && (why || now >= deadline)) return false
      if (step && why) {
        frames = o.audio[stepIdx]!
        frameIdx = 0
        current = { id: step.id, kind: step.kind, startAt: now, firstVoicedAt: 0, lastVoicedAt: 0, trigger: why, sendLateMaxMs: 0 }
        log.steps.push(current)
      }
    }
    const index = frameIdx++
    send(frames ? { step: stepIdx, index } : { noise: seq }, seq === 0)
    seq++
    if (frames && current) {
      const pcm = frames[index]!
      current.sendLateMaxMs = Math.max(current.sendLateMaxMs, Math.round(lateMs))
      if (frameDbfs(pcm) > VOICED_DBFS) {
        current.firstVoicedAt ||= now
        current.lastVoicedAt = now
      }
      if (frameIdx >= frames.length) {
        if (current.kind === 'turn') turnEnd = current.lastVoicedAt || now
        frames = undefined
        current = undefined
        stepIdx++
      }
    }
    return now < deadline
  }

  const stop = () => {
    over = true
    clearTimeout(timer)
    finish()
  }
  const origin = performance.now()
  log.rtpStartAt = performance.timeOrigin + origin
  let k = 0
  const loop = () => {
    while (!over && origin + k * 20 <= performance.now()) {
      if (!tick(absNow(), performance.now() - (origin + k * 20))) return stop()
      k++
    }
    if (!over) timer = setTimeout(loop, Math.max(0, origin + k * 20 - performance.now()))
  }
  loop()
  return {
    done,
    stop,
    get stepsDone() {
      return stepIdx
    },
  }
}

/** The call's outcome once the script ran: ok when every step was said before the deadline. */
export function judge(log: PhoneLog, run: CallerRun, steps: number, deadlineMs: number): void {
  log.ok = run.stepsDone >= steps && absNow() < log.answeredAt + deadlineMs
  if (!log.ok) log.error = run.stepsDone < steps ? `the call ended at step ${run.stepsDone} of ${steps}` : 'the call ran past its deadline'
}
