// The understanding corpus (test/fixtures/understanding/utterances.json): what callers say, to
// which agent, and what should follow. Loading and the rules every entry must keep; pure but
// for the file reads.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { AGENT_NAMES, type AgentName } from './agents.ts'

export const CORPUS_FILE = join(import.meta.dir, '../../../test/fixtures/understanding/utterances.json')
export const CLINIC_DOCUMENTS = join(import.meta.dir, '../../../test/fixtures/knowledge-eval/documents')

export const CATEGORIES = ['template_route', 'knowledge', 'digits', 'yes_no', 'date_time', 'name_street', 'backchannel'] as const
export type Category = (typeof CATEGORIES)[number]
export type Split = 'tuning' | 'heldout'

export interface Expect {
  /** The node whose words the agent says next (the workflow's route on the caller's words). */
  node?: string
  /** Knowledge: the document that answers and a phrase of it the spoken passage must hold; null when none answers. */
  document?: string
  contains?: string | null
  /** Digits: the number meant. */
  digits?: string
  /** Yes/no: the answer meant. */
  answer?: 'yes' | 'no'
  /** Dates, times, names, streets: the words that carry the value. */
  terms?: string[]
  /** Backchannel: said over the agent, it must not stop it. */
  stop?: false
}

export interface Utterance {
  id: string
  text: string
  category: Category
  agent: AgentName
  split: Split
  expect: Expect
}

/** The agent each category speaks to; the templates' routes go to any of the four. */
const CATEGORY_AGENTS: Record<Category, readonly AgentName[]> = {
  template_route: ['receptionist', 'booking', 'sales', 'followup'],
  knowledge: ['clinic'],
  digits: ['digits'],
  yes_no: ['confirm'],
  date_time: ['capture'],
  name_street: ['capture'],
  backchannel: ['welcome'],
}

export function loadCorpus(file = CORPUS_FILE): Utterance[] {
  return JSON.parse(readFileSync(file, 'utf8')) as Utterance[]
}

/**
 * What is wrong with the corpus as data (the routes are checked against the workflows
 * elsewhere): ids, sizes, categories, the split, the shape of `expect`, and that each
 * `contains` is in the text of its document (`documentText(name)`).
 */
export function corpusProblems(corpus: readonly Utterance[], documentText: (name: string) => string | undefined): string[] {
  const problems: string[] = []
  if (corpus.length < 300) problems.push(`${corpus.length} utterances; at least 300 are needed`)
  const ids = new Set<string>()
  for (const u of corpus) {
    const at = `${u.id ?? '?'}:`
    if (!/^[a-z]+-\d{2,3}$/.test(u.id)) problems.push(`${at} an id is letters, a dash and two or three digits`)
    if (ids.has(u.id)) problems.push(`${at} the id is used twice`)
    ids.add(u.id)
    if (!CATEGORIES.includes(u.category)) problems.push(`${at} unknown category ${u.category}`)
    else if (!CATEGORY_AGENTS[u.category].includes(u.agent)) problems.push(`${at} a ${u.category} utterance goes to ${CATEGORY_AGENTS[u.category].join(' or ')}, not ${u.agent}`)
    if (!AGENT_NAMES.includes(u.agent)) problems.push(`${at} unknown agent ${u.agent}`)
    if (u.split !== 'tuning' && u.split !== 'heldout') problems.push(`${at} split is tuning or heldout`)
    if (typeof u.text !== 'string' || !u.text.trim() || u.text.length > 200) problems.push(`${at} the text is 1-200 characters`)
    // every voice must say the same words: numbers are written as they are said
    else if (/\d/.test(u.text)) problems.push(`${at} the text writes numbers as words`)
    problems.push(...expectProblems(u, documentText).map((p) => `${at} ${p}`))
  }
  for (const c of CATEGORIES) {
    const of = corpus.filter((u) => u.category === c)
    if (!of.length) problems.push(`no ${c} utterance`)
    const share = of.filter((u) => u.split === 'heldout').length / Math.max(1, of.length)
    if (of.length && (share < 0.25 || share > 0.4)) problems.push(`${c}: ${Math.round(share * 100)} % held out; about a third is`)
  }
  return problems
}

function expectProblems(u: Utterance, documentText: (name: string) => string | undefined): string[] {
  const e = u.expect ?? {}
  const out: string[] = []
  if (u.category !== 'backchannel' && !e.node) out.push('expect.node names the node that answers')
  if (u.category === 'knowledge') {
    if (e.contains === null) {
      if (e.node !== 'sorry') out.push('an unanswerable question expects the no_match node, sorry')
    } else if (!e.document || typeof e.contains !== 'string') out.push('expect has the document and the phrase it contains')
    else {
      const words = e.contains.split(/\s+/).length
      const text = documentText(e.document)
      if (words < 3 || words > 8) out.push('expect.contains is 3-8 words')
      if (text === undefined) out.push(`no document ${e.document}`)
      else if (!squash(text).includes(squash(e.contains))) out.push(`"${e.contains}" is not in ${e.document}`)
    }
  }
  if (u.category === 'digits' && !/^\d{3,19}$/.test(e.digits ?? '')) out.push('expect.digits is the number, 3-19 digits')
  if (u.category === 'yes_no' && (e.answer !== 'yes' && e.answer !== 'no')) out.push('expect.answer is yes or no')
  if ((u.category === 'date_time' || u.category === 'name_street') && !(e.terms?.length && e.terms.every((t) => squash(u.text).split(' ').includes(t)))) {
    out.push('expect.terms are words of the text')
  }
  if (u.category === 'backchannel' && e.stop !== false) out.push('a backchannel expects stop: false')
  return out
}

/** Lower case, letters and digits only, single spaces: how a phrase is found in a document or a transcript. */
export const squash = (s: string) => s.toLowerCase().replace(/&amp;/g, '&').replace(/[^a-z0-9$%]+/g, ' ').trim()
