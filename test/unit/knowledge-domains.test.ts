// The knowledge-domains evaluation sets stay valid: every phrase a question expects still occurs
// exactly once in its domain, counts per kind hold, and held-out domains stay marked as such.
import { describe, expect, test } from 'bun:test'
import { checkAll, checkDomain, count, parseCsv } from '../fixtures/knowledge-domains/check.ts'

describe('knowledge-domains evaluation sets', () => {
  test('every domain passes the validator', () => {
    const { errors } = checkAll()
    expect(errors).toEqual([])
  })

  test('three domains are for tuning and at least two are held out of it', () => {
    const { entries } = checkAll()
    expect(entries.filter((e) => e.split === 'tuning')).toHaveLength(3)
    expect(entries.filter((e) => e.split === 'heldout').length).toBeGreaterThanOrEqual(2)
  })

  test('a domain that is not there is reported, not skipped', () => {
    const errors: string[] = []
    checkDomain('no-such-domain', (m) => errors.push(m))
    expect(errors).toContain('no-such-domain: SOURCE.md missing')
    expect(errors).toContain('no-such-domain: documents/ missing')
  })

  test('the CSV reader follows RFC 4180 quoting', () => {
    const fails: string[] = []
    const rows = parseCsv('question,answer\r\n"a, b","say ""hi""\r\nthen bye"\r\n', (m) => fails.push(m))
    expect(rows).toEqual([['question', 'answer'], ['a, b', 'say "hi"\r\nthen bye']])
    parseCsv('question,answer\n"open', (m) => fails.push(m))
    expect(fails).toEqual(['csv: unterminated quoted field'])
  })

  test('a phrase is counted every time it occurs, overlaps included', () => {
    expect(count('aaa', 'aa')).toBe(2)
    expect(count('the fee, the fee', 'the fee')).toBe(2)
    expect(count('nothing here', 'fee')).toBe(0)
  })
})
