// How the bench reads a call's record: route, value, answer and words.
import { describe, expect, test } from 'bun:test'
import { graphOf } from './agents.ts'
import type { Utterance } from './corpus.ts'
import { judgeCall, nodeOfLine, type RecordLine } from './judge.ts'
import { planTrials } from './plan.ts'

const u = (over: Partial<Utterance>): Utterance => ({ id: 'x-01', text: 'what are your opening hours', category: 'template_route', agent: 'receptionist', split: 'tuning', expect: { node: 'hours' }, ...over })
const agent = (text: string, sources?: RecordLine['sources']): RecordLine => ({ role: 'agent', text, ...(sources ? { sources } : {}) })
const user = (text: string): RecordLine => ({ role: 'user', text })
const greeting = agent('Hello, thank you for calling. For our opening hours press 1 or say hours. To leave a message press 2 or say message. Or ask me your question.')

describe('the route', () => {
  test('is the node whose words follow the caller', () => {
    const r = judgeCall(u({}), graphOf('receptionist'), [greeting, user('what are your opening hours'), agent('We are open Monday to Friday, from nine in the morning until five in the evening.')])
    expect(r).toMatchObject({ route: 'hours', routeOk: true, errors: { ref: 5, sub: 0, del: 0, ins: 0 } })
  })

  test('a reply cut short by the caller hanging up still names its node', () => {
    expect(nodeOfLine(graphOf('receptionist'), agent('We are open Monday to'))).toEqual({ node: 'hours' })
  })

  test('nothing heard is route none; a wrong route is not ok', () => {
    expect(judgeCall(u({}), graphOf('receptionist'), [greeting])).toMatchObject({ route: 'none', routeOk: false, heard: '', errors: { ref: 5, del: 5 } })
    const wrong = judgeCall(u({}), graphOf('receptionist'), [greeting, user('what are you a message'), agent('Please leave your message after this sentence, and we will call you back.')])
    expect(wrong).toMatchObject({ route: 'message', routeOk: false })
  })
})

describe('values and answers', () => {
  test('digits: the number the collect node repeated must be the one meant', () => {
    const d = u({ category: 'digits', agent: 'digits', text: 'four one two five', expect: { node: 'echo', digits: '4125' } })
    const ok = judgeCall(d, graphOf('digits'), [agent('Hello. Please say the number after this sentence.'), user('four one two five'), agent('I have 4125. Goodbye.')])
    expect(ok).toMatchObject({ route: 'echo', valueOk: true })
    const off = judgeCall(d, graphOf('digits'), [agent('Hello. Please say the number after this sentence.'), user('four one two nine'), agent('I have 4129. Goodbye.')])
    expect(off).toMatchObject({ route: 'echo', valueOk: false })
  })

  test('knowledge: answered when the passage spoken holds the phrase', () => {
    const q = u({ category: 'knowledge', agent: 'clinic', text: 'what time do you close on saturday', expect: { node: 'faq', document: 'opening-hours.md', contains: 'the clinic closes at 1 pm' } })
    const start = agent('Harbor Family Clinic. What would you like to know?')
    const src = [{ documentName: 'opening-hours.md' }]
    expect(judgeCall(q, graphOf('clinic'), [start, user('what time do you close on saturday'), agent('On Saturdays the clinic closes at 1 pm.', src)])).toMatchObject({ route: 'faq', answered: true })
    expect(judgeCall(q, graphOf('clinic'), [start, user('what time do you close'), agent('The pharmacy closes at 7:30 pm.', src)])).toMatchObject({ route: 'faq', answered: false })
    expect(judgeCall(q, graphOf('clinic'), [start, user('what'), agent('Sorry, I do not have an answer to that. Please ask me another question.')])).toMatchObject({ route: 'sorry', answered: false })
  })

  test('names and dates: the share of the value words heard', () => {
    const n = u({ category: 'name_street', agent: 'capture', text: 'my name is John Smith', expect: { node: 'noted', terms: ['john', 'smith'] } })
    const r = judgeCall(n, graphOf('capture'), [agent('Hello. Please say it after this sentence.'), user('my name is john smart'), agent('Thank you, I have noted that. Goodbye.')])
    expect(r).toMatchObject({ route: 'noted', routeOk: true, termsShare: 0.5 })
  })
})

describe('the plan', () => {
  const corpus: Utterance[] = ['a', 'b', 'c', 'd', 'e', 'f'].flatMap((x, i) => [
    u({ id: `r${x}-01`, split: i % 3 === 2 ? 'heldout' : 'tuning' }),
    u({ id: `k${x}-01`, category: 'knowledge', agent: 'clinic', split: 'tuning' }),
    u({ id: `b${x}-01`, category: 'backchannel', agent: 'welcome' }),
  ])

  test('every voice x condition cell, backchannels left out, the split kept', () => {
    const all = planTrials(corpus, { voices: ['festival-kal', 'pico-us'], conditions: ['pcmu', 'wide'], split: 'all' })
    expect(all.length).toBe(2 * 2 * 12)
    expect(all.some((t) => t.utterance.category === 'backchannel')).toBe(false)
    expect(planTrials(corpus, { voices: ['festival-kal'], conditions: ['pcmu'], split: 'heldout' }).map((t) => t.utterance.id).sort()).toEqual(['rc-01', 'rf-01'])
  })

  test('a limit takes categories in turn, the same utterances on every run, others in other cells', () => {
    const o = { voices: ['festival-kal'], conditions: ['pcmu', 'pcma'], split: 'all' as const, limit: 4 }
    const a = planTrials(corpus, o)
    expect(a.length).toBe(8)
    const pcmu = a.filter((t) => t.condition === 'pcmu')
    expect(pcmu.filter((t) => t.utterance.category === 'knowledge').length).toBe(2)
    expect(planTrials(corpus, o)).toEqual(a)
    const ids = (c: string) => a.filter((t) => t.condition === c).map((t) => t.utterance.id).sort().join()
    expect(ids('pcmu')).not.toBe(ids('pcma'))
  })
})
