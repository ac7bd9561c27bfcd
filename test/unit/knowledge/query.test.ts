// A caller's words as a search: what counts, what documents call it, how it sounds, and how sure
// a passage answers it.
import { describe, expect, test } from 'bun:test'
import { callerQuery, confidence, evidenceOf, passageWords, soundKey, soundsFor, spokenBits } from '../../../src/features/knowledge/text/index.ts'

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
  const clinic = 165

  test('a passage holding every term is sure; one missing the telling word is not, though it holds the common ones', () => {
    const q = callerQuery('is there a paternity test at the lab', true)
    // no passage says paternity; test and lab are in 25 and 14 of the clinic's 165
    const df: Record<string, number> = { paternity: 0, test: 25, lab: 14 }
    const evidence = evidenceOf(q, q.terms.flatMap((t) => t.forms.map((f) => df[f.phrase]!)), [], [], clinic)
    expect(confidence(passageWords('Lab tests are taken in the lab on the ground floor.', true), evidence, true)).toBeLessThan(0.5)
    const saturday = callerQuery('what time do you close on saturday', true)
    const all = evidenceOf(saturday, saturday.terms.flatMap((t) => t.forms.map(() => 12)), [], [], clinic)
    expect(confidence(passageWords('On Saturdays the clinic closes at 1 pm; that is the time we shut.', true), all, true)).toBe(1)
  })

  test('a word is found by its stem, a phrase only as its words in a row, a misheard word by its sound', () => {
    const q = callerQuery('is the farm see open on sunday', true)
    const sounds = soundsFor(q, [0])
    const evidence = evidenceOf(q, q.terms.flatMap((t) => t.forms.map((f) => (f.phrase === 'farm' ? 0 : 5))), sounds, sounds.map(() => 3), clinic)
    expect(confidence(passageWords('The pharmacy opens on Sundays from 10 am.', true), evidence, true)).toBe(1)
    const house = callerQuery('house calls', true)
    const visits = evidenceOf(house, house.terms.flatMap((t) => t.forms.map(() => 3)), [], [], 100)
    expect(confidence(passageWords('Our doctors make home visits on Tuesdays.', true), visits, true)).toBe(1)
    expect(confidence(passageWords('Home is where we visit.', true), visits, true)).toBe(0)
  })

  test('a word says more the rarer it is in spoken English', () => {
    expect(spokenBits('paternity')).toBeGreaterThan(spokenBits('test'))
    expect(spokenBits('tomorrow')).toBeLessThan(spokenBits('umbrella'))
    expect(spokenBits('zzyzzyxq')).toBeGreaterThan(spokenBits('acupuncture'))
  })
})
