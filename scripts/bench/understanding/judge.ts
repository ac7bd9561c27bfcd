// What one call shows, from its record (GET /api/calls/{id}): the words the recogniser heard
// (the user lines), the node the workflow went to (the first agent line after them, matched to
// the node that says it), the value a collect node took, and whether a spoken answer holds the
// phrase that answers. Pure.
import type { Graph } from './agents.ts'
import type { Utterance } from './corpus.ts'
import { holdsPhrase, normalise, termsHeard, wordErrors, type WordErrors } from './score.ts'

export interface RecordLine {
  role: 'agent' | 'user'
  text: string
  timestamp?: number
  sources?: { passageId?: string; documentName?: string; section?: string; score?: number }[]
}

export interface CallResult {
  /** What the record's user lines hold, joined. */
  heard: string
  /** Against the utterance's text; undefined when it has none (the SIPp recording). */
  errors?: WordErrors
  /** The node that spoke next; 'none' when the caller was not heard, 'unknown' when no node says that line. */
  route: string
  routeOk: boolean
  /** Knowledge: the reply held the phrase (answerable questions only). */
  answered?: boolean
  /** Digits or yes/no: the value the collect node took was the one meant. */
  valueOk?: boolean
  /** Dates, times, names, streets: the share of the value's words heard. */
  termsShare?: number
}

/** A node's words as a pattern over normalised text: {{value}} is any run of words. */
function nodePattern(text: string): RegExp {
  const parts = text.split(/\{\{\s*value\s*\}\}/).map((p) => normalise(p).join(' '))
  const body = parts.map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join(' ?(.*?) ?')
  return new RegExp(`^${body}$`)
}

const spokenText = (n: Graph['nodes'][number]) => (n.config.text ?? n.config.prompt) as string | undefined

/** The node of `graph` that says `line` (whole, or its start when the speech was cut), and what {{value}} held. */
export function nodeOfLine(graph: Graph, line: RecordLine): { node: string; value?: string } {
  const said = normalise(line.text).join(' ')
  for (const n of graph.nodes) {
    const text = spokenText(n)
    if (!text) continue
    const m = nodePattern(text).exec(said)
    if (m) return { node: n.id, value: m[1]?.replace(/ /g, '') }
    const whole = normalise(text).join(' ')
    if (!text.includes('{{') && said.split(' ').length >= 3 && whole.startsWith(`${said} `)) return { node: n.id }
  }
  const answer = graph.nodes.find((n) => n.type === 'answer')
  return { node: answer ? answer.id : 'unknown' }
}

/** Digits the agent repeated ("I have 4125551234."), from the words of the echo line. */
const digitsOf = (value: string | undefined) => value?.replace(/[^0-9]/g, '')

export function judgeCall(u: Utterance, graph: Graph, transcript: readonly RecordLine[]): CallResult {
  const userAt = transcript.findIndex((l) => l.role === 'user' && !l.text.startsWith('[DTMF]'))
  const heard = transcript.filter((l) => l.role === 'user' && !l.text.startsWith('[DTMF]')).map((l) => l.text).join(' ')
  const reply = userAt < 0 ? undefined : transcript.slice(userAt + 1).find((l) => l.role === 'agent')
  const spoken = reply ? nodeOfLine(graph, reply) : undefined
  const route = userAt < 0 ? 'none' : (spoken?.node ?? 'silent')
  const out: CallResult = { heard, route, routeOk: route === u.expect.node }
  if (u.text) out.errors = wordErrors(u.text, heard)
  if (u.category === 'knowledge' && typeof u.expect.contains === 'string') out.answered = out.routeOk && reply !== undefined && holdsPhrase(reply.text, u.expect.contains)
  if (u.category === 'digits') out.valueOk = out.routeOk && digitsOf(raw(reply, graph)) === u.expect.digits
  if (u.category === 'yes_no') out.valueOk = out.routeOk
  if (u.expect.terms?.length) out.termsShare = termsHeard(u.expect.terms, heard)
  return out
}

/** The {{value}} of the echo line as the agent wrote it (digits stay digits). */
function raw(reply: RecordLine | undefined, graph: Graph): string | undefined {
  if (!reply) return undefined
  const echo = graph.nodes.find((n) => String(spokenText(n) ?? '').includes('{{value}}'))
  const text = echo ? spokenText(echo)! : ''
  const [before, after] = text.split('{{value}}')
  const t = reply.text
  if (before === undefined || after === undefined || !t.startsWith(before)) return undefined
  return t.slice(before.length, after ? t.lastIndexOf(after.trim()) : undefined)
}
