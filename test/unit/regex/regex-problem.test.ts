// Operator patterns run over caller and agent speech on the event loop: the shapes a backtracking
// engine can take exponential or high-polynomial time on are refused, the others kept.
import { describe, expect, test } from 'bun:test'
import { boundedTest, MAX_REGEX_SUBJECT, regexProblem } from '../../../src/platform/regex/index.ts'

describe('regexProblem', () => {
  test('refuses a repeated group that repeats, however deeply nested or however written', () => {
    for (const p of ['(a+)+', '((a+))+', '(?:\\w+\\s?)+', '^(\\w+\\s?)+$', '(\\d{2,3})+', '(a*){2,}', '(x?y)*'])
      expect(regexProblem(p)).toContain('repeats a group that itself repeats')
  })

  test('refuses repeated alternatives that can match the same text, keeps plain words none a prefix of another', () => {
    expect(regexProblem('(a|aa)+')).toContain('alternatives that can match the same text')
    expect(regexProblem('(\\w|\\d)*')).toContain('alternatives')
    expect(regexProblem('(Yes|yeah)+', 'i')).toBeUndefined()
    expect(regexProblem('(yes|y)+', 'i')).toContain('alternatives')
    expect(regexProblem('((yes|no) )+')).toBeUndefined()
  })

  test('refuses more than two open-ended repeats and backreferences', () => {
    expect(regexProblem('.*.*.*x')).toContain('3 open-ended repeats')
    expect(regexProblem('a{2,}b+c*')).toContain('3 open-ended repeats')
    expect(regexProblem('(a)\\1')).toContain('backreference')
    expect(regexProblem('(?<n>a)\\k<n>')).toContain('backreference')
  })

  test('keeps the everyday shapes, and reports a pattern that does not compile', () => {
    for (const p of ['good\\s*bye', 'nine\\s+to\\s+FIVE', '\\d+ and \\d+', '([A-Z]{2}\\d{4})', '(\\d{3}-)+', '^[0-9]{6}$', '[(+]+x', '^(yes|yeah)$', 'a{1,50}'])
      expect([p, regexProblem(p)]).toEqual([p, undefined])
    expect(regexProblem('(')).toContain('is not a valid regular expression')
  })

  test('boundedTest looks at the first MAX_REGEX_SUBJECT characters only', () => {
    const long = `${'a'.repeat(MAX_REGEX_SUBJECT)}needle`
    expect(boundedTest(/needle/, long)).toBe(false)
    expect(boundedTest(/a{10}/, long)).toBe(true)
  })
})
