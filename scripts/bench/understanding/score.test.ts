// The bench's word error rate and answer checks.
import { describe, expect, test } from 'bun:test'
import { holdsPhrase, normalise, numberWords, sumErrors, termsHeard, werPercent, wordErrors } from './score.ts'

describe('normalise', () => {
  test('case and punctuation go; apostrophes inside words stay', () => {
    expect(normalise("Hi, what's the time?  Don't worry!")).toEqual(['hi', "what's", 'the', 'time', "don't", 'worry'])
  })

  test('numbers, prices, percentages and clock times become the words said', () => {
    expect(normalise('240 Harbor Road')).toEqual(['two', 'hundred', 'forty', 'harbor', 'road'])
    expect(normalise('a $40 fee')).toEqual(['a', 'forty', 'dollars', 'fee'])
    expect(normalise('15% off')).toEqual(['fifteen', 'percent', 'off'])
    expect(normalise('from 12:30 pm to 1:05 pm, or 9:00')).toEqual(['from', 'twelve', 'thirty', 'pm', 'to', 'one', 'oh', 'five', 'pm', 'or', 'nine', "o'clock"])
    expect(normalise('call 4125551234')).toEqual(['call', 'four', 'one', 'two', 'five', 'five', 'five', 'one', 'two', 'three', 'four'])
  })

  test('hyphens split, and spellings of the same word are one', () => {
    expect(normalise('uh-huh, OK alright')).toEqual(['uh', 'huh', 'okay', 'all', 'right'])
  })

  test('numberWords says thousands and teens', () => {
    expect(numberWords(1100)).toBe('one thousand one hundred')
    expect(numberWords(17)).toBe('seventeen')
    expect(numberWords(90)).toBe('ninety')
  })
})

describe('word errors', () => {
  test('identical after normalising: no errors', () => {
    expect(wordErrors('What time do you close on Saturday?', 'what time do you close on saturday')).toEqual({ ref: 7, sub: 0, del: 0, ins: 0 })
  })

  test("the issue's example: 'but i knew you close on saturday' is three words substituted", () => {
    const e = wordErrors('what time do you close on saturday', 'but i knew you close on saturday')
    expect(e).toEqual({ ref: 7, sub: 3, del: 0, ins: 0 })
  })

  test('deletions and insertions are told apart', () => {
    expect(wordErrors('book an appointment please', 'book appointment')).toEqual({ ref: 4, sub: 0, del: 2, ins: 0 })
    expect(wordErrors('yes', 'yes yes please')).toEqual({ ref: 1, sub: 0, del: 0, ins: 2 })
  })

  test('nothing heard is every word deleted', () => {
    expect(wordErrors('four one two', '')).toEqual({ ref: 3, sub: 0, del: 3, ins: 0 })
  })

  test('the corpus WER sums errors over words, not rates over utterances', () => {
    const total = sumErrors([wordErrors('a b c d', 'a b c d'), wordErrors('x', 'y')])
    expect(werPercent(total)).toBeCloseTo(20, 5)
    expect(werPercent({ ref: 0, sub: 0, del: 0, ins: 0 })).toBeUndefined()
  })
})

describe('answers', () => {
  test('a spoken passage holds the phrase whatever the digits and punctuation', () => {
    expect(holdsPhrase('If you do not come, we charge a $40 missed appointment fee.', 'a $40 missed appointment fee')).toBe(true)
    expect(holdsPhrase('we charge a forty dollars missed appointment fee', 'a $40 missed appointment fee')).toBe(true)
    expect(holdsPhrase('On Saturdays the clinic closes at 1 pm.', 'the clinic closes at 1 pm')).toBe(true)
    expect(holdsPhrase('The pharmacy closes at 3 pm.', 'the clinic closes at 1 pm')).toBe(false)
  })

  test('a phrase matches whole words only', () => {
    expect(holdsPhrase('a free sharpscontainer', 'free sharps')).toBe(false)
  })

  test('the share of value words heard', () => {
    expect(termsHeard(['tuesday', 'ten', 'morning'], 'next tuesday at ten')).toBeCloseTo(2 / 3, 5)
    expect(termsHeard([], 'anything')).toBe(1)
  })
})
