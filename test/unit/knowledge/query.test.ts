// A caller's words as a search: what counts, what documents call it, how it sounds, and how sure
// a passage answers it.
import { describe, expect, test } from 'bun:test'
import { callerQuery, confidence, evidenceOf, soundKey, soundsFor, spokenBits, type TermStat } from '../../../src/features/knowledge/text/index.ts'

describe('a caller\'s turn as terms', () => {
  test('fillers and stop words do not count; what is left keeps its order and only letters and digits', () => {
    expect(callerQuery('Hi, yeah, um, what time do you guys close on Saturday?', true).terms.map((t) => t.said)).toEqual(['time', 'close', 'saturday'])
    expect(callerQuery('NEAR("saturday" OR kb:*) AND {title}: ^hours', true).terms.map((t) => t.said)).toEqual(['near', 'saturday', 'kb', 'title', 'hours'])
    for (const t of callerQuery('"); DROP TABLE x; -- \'" * : ^ { } ( )', true).terms) for (const f of t.forms) expect(f.phrase).toMatch(/^[\p{L}\p{N} ]+$/u)
    // another language keeps its short words: no English stop list applies
    expect(callerQuery('wann ist die Praxis am Samstag offen', false).terms.map((t) => t.said)).toEqual(['wann', 'ist', 'die', 'praxis', 'am', 'samstag', 'offen'])
  })

  test('a caller phrase is a term beside its words, with the words documents use for it; long words also match as a prefix', () => {
    const q = callerQuery('does the doctor do house calls', true)
    expect(q.terms.map((t) => t.said)).toEqual(['doctor', 'house calls', 'house', 'calls'])
    expect(q.terms[1]!.forms.map((f) => f.phrase)).toEqual(['house calls', 'home visit'])
    expect(q.terms[1]!.parts).toEqual([2, 3])
    expect(callerQuery('I want to complain', true).terms[0]!.forms).toContainEqual({ phrase: 'complain', prefix: true })
  })

  test('words a recogniser split or misheard sound like the word meant', () => {
    for (const [heard, meant] of [['farm see', 'pharmacy'], ['a point meant', 'appointment'], ['re salts', 'results'], ['die a beat ease', 'diabetes'], ['in sure ants', 'insurance'], ['knew patience', 'new patients']]) {
      expect(soundKey(heard!.replace(/ /g, '')), heard).toBe(soundKey(meant!.replace(/ /g, '')))
    }
    expect(soundKey('close')).not.toBe(soundKey('clothes'))
    const q = callerQuery('is the farm see open', true)
    const keys = soundsFor(q, [0]).map((s) => s.key)
    expect(keys).toContain(soundKey('pharmacy'))
    // a word passages hold is not sounded alone, only run together with its neighbours
    expect(soundsFor(q, []).some((s) => s.key === soundKey('open'))).toBe(false)
  })
})

describe('confidence', () => {
  const stat = (df: number, ...ids: number[]): TermStat => ({ df, in: new Set(ids) })

  test('a passage holding every term is sure; one missing the telling word is not, though it holds the common ones', () => {
    const q = callerQuery('is there a paternity test at the lab', true)
    // no passage says paternity; test and lab are in passage 1, as in 25 and 14 of the clinic's 165
    const df: Record<string, TermStat> = { paternity: stat(0), test: stat(25, 1), lab: stat(14, 1) }
    const evidence = evidenceOf(q, q.terms.flatMap((t) => t.forms.map((f) => df[f.phrase]!)), [], [], 165)
    expect(confidence(1, evidence)).toBeLessThan(0.5)
    const all = evidenceOf(callerQuery('what time do you close on saturday', true), [stat(22, 1), stat(15, 1), stat(15, 1), stat(15, 1), stat(11, 1)], [], [], 165)
    expect(confidence(1, all)).toBe(1)
  })

  test('a word says more the rarer it is in spoken English', () => {
    expect(spokenBits('paternity')).toBeGreaterThan(spokenBits('test'))
    expect(spokenBits('tomorrow')).toBeLessThan(spokenBits('umbrella'))
    expect(spokenBits('zzyzzyxq')).toBeGreaterThan(spokenBits('acupuncture'))
  })

  test('a phrase the passage holds counts instead of its words', () => {
    const q = callerQuery('house calls', true)
    const forms = q.terms.flatMap((t) => t.forms)
    // "home visit" is in passage 7; "house" and "calls" are not
    const stats = forms.map((f) => (f.phrase === 'home visit' ? stat(2, 7) : stat(3)))
    expect(confidence(7, evidenceOf(q, stats, [], [], 100))).toBe(1)
    expect(confidence(8, evidenceOf(q, stats, [], [], 100))).toBe(0)
  })
})
