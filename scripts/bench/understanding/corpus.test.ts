// The understanding corpus is valid data, and each utterance typed into its agent's workflow goes
// where the corpus says: a wrong route in the bench is then the recogniser's, not the corpus's.
import { describe, expect, test } from 'bun:test'
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { CATEGORIES, CLINIC_DOCUMENTS, corpusProblems, loadCorpus, type Utterance } from './corpus.ts'
import { typedRoute } from './routes.ts'

const corpus = loadCorpus()
const documents = new Map(readdirSync(CLINIC_DOCUMENTS).map((f) => [f, readFileSync(join(CLINIC_DOCUMENTS, f), 'utf8').replace(/<[^>]+>/g, ' ')]))
const documentText = (name: string) => documents.get(name)

describe('the corpus as data', () => {
  test('has no problems: >= 300 utterances, unique ids, every category, a third held out, well-formed expectations', () => {
    expect(corpusProblems(corpus, documentText)).toEqual([])
  })

  test('every category has tuning and held-out utterances', () => {
    for (const c of CATEGORIES) {
      const of = corpus.filter((u) => u.category === c)
      expect({ c, tuning: of.some((u) => u.split === 'tuning'), heldout: of.some((u) => u.split === 'heldout') }).toEqual({ c, tuning: true, heldout: true })
    }
  })

  test('the checks catch what they are for: a missing phrase, a digit in the text, a duplicate id, a lopsided split', () => {
    const base = corpus.slice()
    const kb = base.find((u) => u.category === 'knowledge' && u.expect.contains)!
    const broken: Utterance[] = [
      ...base.filter((u) => u !== kb),
      { ...kb, expect: { ...kb.expect, contains: 'a phrase found in no document' } },
      { ...base[0]!, text: 'press 1 for hours' },
    ]
    const problems = corpusProblems(broken, documentText)
    expect(problems.some((p) => p.includes('is not in'))).toBe(true)
    expect(problems.some((p) => p.includes('numbers as words'))).toBe(true)
    expect(problems.some((p) => p.includes('used twice'))).toBe(true)
    const lopsided = base.map((u) => (u.category === 'digits' ? { ...u, split: 'tuning' as const } : u))
    expect(corpusProblems(lopsided, documentText).some((p) => p.startsWith('digits:'))).toBe(true)
  })
})

describe('typed into the workflow', () => {
  test('each routed utterance reaches the node it expects', async () => {
    const wrong: string[] = []
    for (const u of corpus.filter((u) => u.category !== 'backchannel' && u.category !== 'knowledge')) {
      const r = await typedRoute(u.agent, u.text)
      if (r.node !== u.expect.node) wrong.push(`${u.id} "${u.text}": ${r.node} (expected ${u.expect.node})`)
    }
    expect(wrong).toEqual([])
  })

  test('a number is taken as the digits meant, a yes or no as the answer meant', async () => {
    const wrong: string[] = []
    for (const u of corpus.filter((u) => u.category === 'digits' || u.category === 'yes_no')) {
      const r = await typedRoute(u.agent, u.text)
      const meant = u.expect.digits ?? u.expect.answer
      if (r.value !== meant) wrong.push(`${u.id} "${u.text}": ${r.value} (expected ${meant})`)
    }
    expect(wrong).toEqual([])
  })

  test('a question to the clinic with no base linked is no_match: the sorry node (the bench links the base)', async () => {
    const q = corpus.find((u) => u.category === 'knowledge')!
    expect((await typedRoute(q.agent, q.text)).node).toBe('sorry')
  })
})
