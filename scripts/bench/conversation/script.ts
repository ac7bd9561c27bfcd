// The conversation every benchmark call has, shared by the bench, the phones and the fakes: what
// the agent says (a workflow's say nodes offline, the fake LLM's replies in the cloud shape), what
// the caller says and when, and what the fake STT hears.

/** Cloud shape: the fake providers' first-byte delays, which its platform share is net of. */
export const CLOUD_DELAYS = { sttFinalMs: 150, llmFirstTokenMs: 250, ttsFirstAudioMs: 120 }

export const WELCOME =
  'Hello, and thank you for calling Riverside Dental. I can book, move or cancel an appointment, ' +
  'tell you our opening hours, or take a message for the team. What would you like to do today?'

/** The agent's answer to each caller turn, in order; `missed` is the workflow's answer when no keyword matched. */
export const ANSWERS = [
  { heard: 'Of course. Which day suits you, Monday or Tuesday?', missed: 'Sorry, I missed that. Which day would suit you, Monday or Tuesday?' },
  {
    heard:
      'Tuesday morning works. We have a slot at nine thirty with doctor Patel, and one at eleven with doctor Chen. ' +
      'Both visits take about forty minutes. Which one would you like?',
    missed:
      'Sorry, I missed the day, so let me offer Tuesday. We have a slot at nine thirty with doctor Patel, and one at eleven with doctor Chen. ' +
      'Which one would you like?',
  },
  { heard: 'Done. You are booked for Tuesday at nine thirty. Is there anything else?', missed: 'Sorry, I missed that, so I booked nine thirty. Anything else?' },
  { heard: 'Thank you for calling Riverside Dental. Goodbye.', missed: 'Sorry, I missed that. Thank you for calling, goodbye.' },
] as const

export type Voice = { engine: 'flite'; voice: string } | { engine: 'espeak'; voice: string; wpm: number } | { engine: 'recording' }

/** Words (or a stretch of the recording and what it says), then line noise for `pauseMs`: hesitations stay inside the turn. */
export interface Piece {
  say?: string
  /** ms into the recorded speech (SIPp's g711a.pcap) */
  recording?: [number, number]
  words?: string
  pauseMs?: number
}

export interface CallerStep {
  id: string
  /** A turn expects an answer; a backchannel is said over the agent and must not stop it. */
  kind: 'turn' | 'backchannel'
  voice: Voice
  pieces: Piece[]
  /** Offline: the workflow routes on these words to the `heard` answer. */
  keywords: string[]
  /**
   * When the caller starts: once the agent's answer to the previous turn is over (quiet), or this
   * long into the agent's utterance that answers it (the welcome before the first turn).
   */
  start: 'after_answer' | { intoAgentMs: number }
}

export const CALLER: CallerStep[] = [
  {
    id: 'interrupt',
    kind: 'turn',
    voice: { engine: 'flite', voice: 'kal' },
    pieces: [{ say: 'Sorry,', pauseMs: 200 }, { say: 'I want to book a visit.' }],
    keywords: ['book', 'visit', 'appointment'],
    start: { intoAgentMs: 1000 },
  },
  {
    id: 'day',
    kind: 'turn',
    voice: { engine: 'espeak', voice: 'en-us+f3', wpm: 165 },
    pieces: [{ say: 'Tuesday,', pauseMs: 150 }, { say: 'um,', pauseMs: 300 }, { say: 'in the morning, if possible.' }],
    keywords: ['tuesday', 'monday', 'morning'],
    start: 'after_answer',
  },
  {
    id: 'backchannel',
    kind: 'backchannel',
    voice: { engine: 'espeak', voice: 'en-gb', wpm: 175 },
    pieces: [{ say: 'uh-huh' }],
    keywords: [],
    start: { intoAgentMs: 1500 },
  },
  {
    id: 'slot',
    kind: 'turn',
    voice: { engine: 'flite', voice: 'slt' },
    pieces: [{ say: 'The,', pauseMs: 250 }, { say: 'um,', pauseMs: 250 }, { say: 'nine thirty one, please.' }],
    keywords: ['nine', 'thirty', 'patel'],
    start: 'after_answer',
  },
  {
    id: 'recorded',
    kind: 'turn',
    voice: { engine: 'recording' },
    pieces: [{ recording: [900, 3300], words: 'No, that is all, thank you.' }],
    keywords: ['no', 'thanks', 'thank', 'all'],
    start: 'after_answer',
  },
]

export const TURNS = CALLER.filter((s) => s.kind === 'turn')

/** What the caller says in a step: what the fake STT hears (cloud shape) and the record should show. */
export const transcriptOf = (step: CallerStep) => step.pieces.flatMap((p) => p.say ?? p.words ?? []).join(' ')

/** Offline: a workflow whose listening say nodes route on the turn's keywords, the `missed` answer otherwise. */
export function workflowGraph() {
  const nodes: { id: string; type: string; config: Record<string, string> }[] = [{ id: 'start', type: 'start', config: { text: WELCOME } }]
  const edges: { from: string; to: string; condition?: { type: 'keywords'; keywords: string[] } }[] = []
  let from = ['start']
  TURNS.forEach((turn, i) => {
    const last = i === TURNS.length - 1
    const answer = ANSWERS[i]!
    const heard = `a${i}_heard`
    const missed = `a${i}_missed`
    nodes.push({ id: heard, type: last ? 'end' : 'say', config: { text: answer.heard } })
    nodes.push({ id: missed, type: last ? 'end' : 'say', config: { text: answer.missed } })
    for (const f of from) edges.push({ from: f, to: heard, condition: { type: 'keywords', keywords: turn.keywords } }, { from: f, to: missed })
    from = [heard, missed]
  })
  return { nodes, edges }
}

const normal = (s: string) => s.toLowerCase().replace(/[^a-z0-9 ]+/g, ' ').replace(/\s+/g, ' ').trim()

/** The caller turn `text` is (most of its words are that turn's), or -1. */
export function turnOf(text: string): number {
  const said = normal(text).split(' ').filter(Boolean)
  let best = -1
  let bestShare = 0.5
  TURNS.forEach((t, i) => {
    const words = new Set(normal(transcriptOf(t)).split(' '))
    const share = said.filter((w) => words.has(w)).length / Math.max(1, said.length)
    if (share > bestShare) [best, bestShare] = [i, share]
  })
  return best
}

/** Cloud shape: the fake LLM's reply to the caller's last words. */
export function llmReply(lastUserText: string): string {
  const i = turnOf(lastUserText)
  return i >= 0 ? ANSWERS[i]!.heard : 'Sorry, could you say that again?'
}

/**
 * Which turn's answer `text` is, whether it is the heard variant, and whether it was cut short (an
 * interrupted speech's transcript line is what was played); undefined for any other line.
 */
export function answerOf(text: string): { turn: number; heard: boolean; cut: boolean } | undefined {
  const n = normal(text)
  const variants = ANSWERS.flatMap((a, turn) => [{ turn, heard: true, text: normal(a.heard) }, { turn, heard: false, text: normal(a.missed) }])
  const whole = variants.find((v) => v.text === n)
  if (whole) return { turn: whole.turn, heard: whole.heard, cut: false }
  const part = n.split(' ').length >= 3 ? variants.find((v) => v.text.startsWith(`${n} `)) : undefined
  return part && { turn: part.turn, heard: part.heard, cut: true }
}
