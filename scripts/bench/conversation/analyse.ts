// Per-call figures from a phone's log and the call's record. Pure: the wire figures come from the
// phone's send and arrival times only; the record is read for its transcript (were the turns
// heard, in order, and answered) and for what it claims (`metrics.turns[i].voiceToVoiceMs`).
import { type AgentEar, earOf, fellSilentAt, longestSilence } from './ear.ts'
import type { PhoneLog } from './log.ts'
import { answerOf, TURNS, transcriptOf, turnOf } from './script.ts'

/** A backchannel "went on" when the agent was talking again this soon after it. */
export const WENT_ON_WITHIN_MS = 1000
/** The record and the wire agree on a turn within this. */
export const AGREE_MS = 40

export interface TurnFigures {
  turn: number
  id: string
  /** Caller's last voiced frame sent -> agent's first voiced frame received; undefined when no answer was heard before the next turn. */
  gapMs?: number
  /** The record's voiceToVoiceMs for this turn (when the record has one turn per scripted turn). */
  recordMs?: number
}

export interface CallFigures {
  id: string
  ok: boolean
  error?: string
  turns: TurnFigures[]
  /** Interruption's first voiced frame sent -> the agent's audio falling silent at the phone; undefined if it never did. */
  bargeInStopMs?: number
  /** The agent's utterance went on after the backchannel (it talked within WENT_ON_WITHIN_MS of its end). */
  backchannelWentOn?: boolean
  /** The longest the agent was silent from the backchannel's start to that time. */
  backchannelSilenceMs?: number
  /** From the record's transcript. */
  lost: number
  outOfOrder: number
  /** Caller turns the record holds beyond the script (a turn split in two, a backchannel taken as a turn). */
  extra: number
  /** Turns whose words the record holds only in part (cloud), or whose keywords the workflow missed (offline). */
  partial: number
}

/** An answer onset at the phone and its transcript line's time (moved to the phone's clock) agree within this. */
export const MATCH_MS = 400

interface Transcript {
  role: 'agent' | 'user'
  text: string
  /** seconds from the start of the call, on the appliance's clock */
  timestamp?: number
}

export interface CallRecord {
  transcript: Transcript[]
  metrics: { turns: { voiceToVoiceMs?: number | null }[] } | null
}

/**
 * When the agent's answer to each scripted turn began at the phone, after the caller's last
 * voiced frame. With the record, the onset is the one its transcript line places (the welcome's
 * line and onset tie the two clocks together), so an answer that comes late is not taken for the
 * answer to a later turn, and a turn the record never answered has none. Without it, the first
 * utterance after the turn that began before the next turn.
 */
function answerOnsets(log: PhoneLog, ear: AgentEar, record: CallRecord | undefined): (number | undefined)[] {
  const steps = log.steps.filter((s) => s.kind === 'turn')
  const welcome = record?.transcript.find((l) => l.role === 'agent')
  const welcomeOnset = ear.onsetAfter(log.answeredAt)
  if (!record || welcome?.timestamp === undefined || welcomeOnset === undefined || answerOf(welcome.text)) {
    return steps.map((s, i) => {
      const onset = ear.onsetAfter(s.lastVoicedAt)
      const next = steps[i + 1]
      return onset !== undefined && (next === undefined || onset < next.firstVoicedAt) ? onset : undefined
    })
  }
  // a turn answered twice (split in two by the endpoint) was answered when the first answer heard after it began
  return steps.map((s, i) => {
    for (const line of record.transcript.filter((l) => l.role === 'agent' && l.timestamp !== undefined && answerOf(l.text)?.turn === i)) {
      const expected = welcomeOnset + (line.timestamp! - welcome.timestamp!) * 1000
      const near = ear.onsets.filter((o) => o > s.lastVoicedAt && Math.abs(o - expected) <= MATCH_MS)
      if (near.length) return near.sort((a, b) => Math.abs(a - expected) - Math.abs(b - expected))[0]
    }
    return undefined
  })
}

export function figuresOf(log: PhoneLog, record: CallRecord | undefined, shape: 'offline' | 'cloud'): CallFigures {
  const ear = earOf(log.rx)
  const turnSteps = log.steps.filter((s) => s.kind === 'turn')
  const order = record ? orderOf(record.transcript, shape) : { lost: TURNS.length, outOfOrder: 0, extra: 0, partial: 0 }
  const recorded = record?.metrics?.turns ?? []
  const aligned = recorded.length === TURNS.length
  const onsets = answerOnsets(log, ear, record)
  const turns = turnSteps.map((s, i): TurnFigures => {
    const onset = onsets[i]
    const r = aligned ? recorded[i]?.voiceToVoiceMs : undefined
    return { turn: i, id: s.id, gapMs: onset === undefined ? undefined : round(onset - s.lastVoicedAt), recordMs: r ?? undefined }
  })
  const out: CallFigures = { id: log.id, ok: log.ok, error: log.error, turns, ...order }
  const interruption = log.steps.find((s) => s.kind === 'turn' && s.trigger === 'into_agent')
  if (interruption) {
    const stop = fellSilentAt(ear.voiced, interruption.firstVoicedAt, interruption.lastVoicedAt)
    out.bargeInStopMs = stop === undefined ? undefined : round(Math.max(0, stop - interruption.firstVoicedAt))
  }
  // a backchannel said when the agent had not answered is not over the agent
  const bc = log.steps.find((s) => s.kind === 'backchannel' && s.trigger === 'into_agent')
  if (bc) {
    const until = bc.lastVoicedAt + WENT_ON_WITHIN_MS
    out.backchannelWentOn = ear.voiced.some((v) => v > bc.lastVoicedAt && v <= until)
    out.backchannelSilenceMs = round(longestSilence(ear.voiced, bc.firstVoicedAt, until))
  }
  return out
}

const round = (ms: number) => Math.round(ms * 10) / 10

/**
 * Walks the record's transcript: every scripted turn must be a user line followed by the agent's
 * answer to that turn, in script order. Offline, pocketsphinx's words are not the script's, so a
 * user line counts by position; the cloud shape's fake STT gives the script's words.
 */
export function orderOf(transcript: readonly Transcript[], shape: 'offline' | 'cloud'): Pick<CallFigures, 'lost' | 'outOfOrder' | 'extra' | 'partial'> {
  let expected = 0
  let users = 0
  let userSinceAnswer = false
  let outOfOrder = 0
  let partial = 0
  let lastUser = ''
  for (const line of transcript) {
    if (line.role === 'user') {
      if (line.text.startsWith('[DTMF]')) continue
      users++
      userSinceAnswer = true
      lastUser = line.text
      continue
    }
    const answer = answerOf(line.text)
    if (!answer) continue // the welcome, or a line that answers nothing scripted
    const inOrder = answer.turn === expected && userSinceAnswer
    const caller = TURNS[answer.turn]
    if (!inOrder || (shape === 'cloud' && turnOf(lastUser) !== answer.turn)) outOfOrder++
    else if (shape === 'cloud' ? normal(lastUser) !== normal(transcriptOf(caller!)) : !answer.heard) partial++
    if (answer.turn >= expected) expected = answer.turn + 1
    userSinceAnswer = false
  }
  return { lost: Math.max(TURNS.length - expected, TURNS.length - users, 0), outOfOrder, extra: Math.max(0, users - TURNS.length), partial }
}

const normal = (s: string) => s.toLowerCase().replace(/[^a-z0-9 ]+/g, ' ').replace(/\s+/g, ' ').trim()
