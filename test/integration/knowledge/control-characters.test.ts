// Control characters in a knowledge base's text fields and in documents (issue 45, finding 9): a
// description refuses NUL, ESC and bidirectional overrides as the name fields do, and a document
// holding an ESC sequence is refused with 422 naming the character and its line; nothing is stored.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { startTestAppliance, type TestAppliance } from '../../helpers/appliance.ts'

let t: TestAppliance
let baseId: string

beforeAll(async () => {
  t = await startTestAppliance({ RATE_LIMIT_PER_SEC: 0 })
  baseId = (await t.api('POST', '/api/knowledge-bases', { body: { name: 'Clinic', description: 'what callers ask\nabout the clinic' } })).body.knowledgeBase.id
})
afterAll(() => t.stop())

test('a description with NUL, ESC or U+202E is refused on create and update; line breaks and tabs are kept', async () => {
  for (const bad of ['a\u0000b', 'red \u001b[31m text', 'txt.\u202eexe', 'bell\u0007']) {
    const created = await t.api('POST', '/api/knowledge-bases', { body: { name: 'x', description: bad } })
    expect(created.status, JSON.stringify(bad)).toBe(422)
    expect(JSON.stringify(created.body.error.details)).toContain('description')
    const patched = await t.api('PATCH', `/api/knowledge-bases/${baseId}`, { body: { description: bad } })
    expect(patched.status, JSON.stringify(bad)).toBe(422)
  }
  expect((await t.api('GET', '/api/knowledge-bases')).body.knowledgeBases.map((b: any) => b.description)).toEqual(['what callers ask\nabout the clinic'])
  const ok = await t.api('PATCH', `/api/knowledge-bases/${baseId}`, { body: { description: 'hours,\tparking\r\nand directions' } })
  expect(ok.body.knowledgeBase.description).toBe('hours,\tparking\r\nand directions')
})

test('a document with an ESC sequence is refused with 422 naming the character and line, as content or as base64', async () => {
  const text = '# Hours\n\nWe open at 8.\n\u001b[2J\u001b[HWe close at 6.\n'
  for (const body of [{ name: 'h.md', content: text }, { name: 'h.md', contentBase64: Buffer.from(text).toString('base64') }]) {
    const r = await t.api('POST', `/api/knowledge-bases/${baseId}/documents`, { body })
    expect(r.status).toBe(422)
    expect(r.body.error.details.fields[0].message).toContain('U+001B on line 4')
  }
  expect((await t.api('GET', `/api/knowledge-bases/${baseId}/documents`)).body.documents).toEqual([])
  // tabs, CRLF line ends and a form feed (a page break) are text
  const fine = await t.api('POST', `/api/knowledge-bases/${baseId}/documents`, { body: { name: 'p.txt', content: 'Parking\tis free.\r\n\fPage two: the garage.' } })
  expect(fine.status, JSON.stringify(fine.body)).toBe(200)
})
