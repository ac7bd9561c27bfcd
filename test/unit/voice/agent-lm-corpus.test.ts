import { describe, expect, test } from 'bun:test'
import { bigramArpa, cmuPhones, corpusOf, lmHash, promptNames, words } from '../../../src/realtime/voice/stt/agent-lm/index.ts'

const source = { workflow: ['Book a cleaning'], prompt: 'You answer for Zephyrine Dental. Ask for Dr Okafor.', vocabulary: ['Invisalign'], knowledge: ['Open 9 to 5. Parking: behind the pharmacy!'] }

describe("an agent's language model corpus", () => {
  test("words are the recogniser's: lower case, digits spelt, punctuation gone, apostrophes kept inside words", () => {
    expect(words("I'd like 2 'cleanings', please!")).toEqual(["i'd", 'like', 'two', 'cleanings', 'please'])
  })

  test("the prompt gives its names only, not a sentence's first word nor its instructions", () => {
    expect(promptNames(source.prompt)).toEqual(['Zephyrine', 'Dental', 'Dr', 'Okafor'])
  })

  test('the corpus holds the workflow, knowledge sentences, callers phrasings and the vocabulary in frames', () => {
    const corpus = corpusOf(source).map((s) => s.join(' '))
    expect(corpus).toContain('book a cleaning')
    expect(corpus).toContain('open nine to five')
    expect(corpus).toContain('parking behind the pharmacy')
    expect(corpus).toContain('can you tell me about invisalign')
    expect(corpus).toContain('can you tell me about zephyrine')
    expect(corpus).toContain('what are your opening hours')
    expect(corpus.some((s) => s.includes('answer for'))).toBe(false)
  })

  test("flite's phones become the acoustic model's, and an unknown phone gives none", () => {
    expect(cmuPhones('pau z eh1 f er ax n pau')).toBe('Z EH F ER AH N')
    expect(cmuPhones('pau k axr pau')).toBe('K ER')
    expect(cmuPhones('pau qq pau')).toBeUndefined()
    expect(cmuPhones('pau pau')).toBeUndefined()
  })

  test("the bigram's unigrams sum to one and each history's seen bigrams leave mass for backing off", () => {
    const { arpa, words: n } = bigramArpa([['a', 'b'], ['a', 'c'], ['b']])
    const ones = arpa.split('\\1-grams:\n')[1]!.split('\n\n')[0]!.split('\n').map((l) => l.split(' '))
    expect(ones.length).toBe(n)
    const sum = ones.filter((l) => l[1] !== '<s>').reduce((s, l) => s + 10 ** Number(l[0]), 0)
    expect(sum).toBeLessThanOrEqual(1.0001)
    expect(sum).toBeGreaterThan(0.7)
    const fromA = arpa.split('\n').filter((l) => / a [bc]$/.test(l)).reduce((s, l) => s + 10 ** Number(l.split(' ')[0]), 0)
    expect(fromA).toBeCloseTo(0.5, 3)
  })

  test('the hash changes with any input and with the mixing weight, and not otherwise', () => {
    const h = lmHash(source, 0.5)
    expect(lmHash({ ...source }, 0.5)).toBe(h)
    expect(lmHash({ ...source, vocabulary: ['Other'] }, 0.5)).not.toBe(h)
    expect(lmHash({ ...source, prompt: 'x' }, 0.5)).not.toBe(h)
    expect(lmHash({ ...source, workflow: [] }, 0.5)).not.toBe(h)
    expect(lmHash(source, 0.7)).not.toBe(h)
  })
})
