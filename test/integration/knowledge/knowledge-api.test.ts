// The knowledge-base API against a real appliance and its SQLite file (PostgreSQL in its pass):
// uploads in every format become passages, search ranks them, a replaced document rewrites only
// what changed, bad uploads store nothing, and another workspace sees none of it.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { memberKey, startTestAppliance, type TestAppliance } from '../../helpers/appliance.ts'
import { DEFAULT_MIN_SCORE } from '../../../src/features/knowledge/index.ts'

let t: TestAppliance
let baseId: string

const HOURS = `# Opening hours

## Weekdays
Monday to Friday the clinic is open from 8 am to 6 pm.

## Saturday
On Saturday we open at 8 am and close at 1 pm. The pharmacy stays open until 2 pm.

## Sunday
The clinic is closed on Sunday. For urgent needs call the after-hours line.
`

const FAQ = 'question,answer\n"How much is parking?","Parking is free for the first two hours, then $2 an hour."\nDo you take walk-ins?,"Yes, walk-ins are seen from 8 to 10 am, Monday to Friday."\n'

const PAGE = `<html><head><title>Directions</title><style>body { color: red }</style></head><body>
<nav><a href="/">Home</a> <a href="/about">About</a></nav>
<h1>Finding us</h1><p>We are at 12 Harbor Road, next to the <b>Maplewood</b> library.</p>
<h2>By bus</h2><p>Bus line 4 stops in front of the clinic every 15 minutes.</p>
<!-- a comment that is not content --></body></html>`

const documents = async (id: string) => (await t.api('GET', `/api/knowledge-bases/${id}/documents`)).body.documents

beforeAll(async () => {
  t = await startTestAppliance({ RATE_LIMIT_PER_SEC: 0 })
  const r = await t.api('POST', '/api/knowledge-bases', { body: { name: 'Clinic', description: 'what callers ask' } })
  expect(r.status, JSON.stringify(r.body)).toBe(200)
  baseId = r.body.knowledgeBase.id
})
afterAll(() => t.stop())

describe('knowledge bases', () => {
  test('a base is created, listed, read and renamed; its language defaults to English', async () => {
    const got = await t.api('GET', `/api/knowledge-bases/${baseId}`)
    expect(got.body.knowledgeBase).toMatchObject({ id: baseId, name: 'Clinic', description: 'what callers ask', language: 'en', workspaceId: t.workspaceId })
    expect((await t.api('GET', '/api/knowledge-bases')).body.knowledgeBases.map((b: any) => b.id)).toContain(baseId)
    const renamed = await t.api('PATCH', `/api/knowledge-bases/${baseId}`, { body: { name: 'Harbor clinic' } })
    expect(renamed.body.knowledgeBase.name).toBe('Harbor clinic')
    expect((await t.api('POST', '/api/knowledge-bases', { body: { name: 'x', language: 'not a language!' } })).status).toBe(422)
  })

  test('Markdown, an FAQ CSV and an HTML page become passages that keep their title and section', async () => {
    const md = await t.api('POST', `/api/knowledge-bases/${baseId}/documents`, { body: { name: 'hours.md', content: HOURS } })
    expect(md.status, JSON.stringify(md.body)).toBe(200)
    expect(md.body.document).toMatchObject({ name: 'hours.md', format: 'markdown', title: 'Opening hours', passages: 3 })
    expect(md.body.index).toEqual({ added: 3, removed: 0, kept: 0 })
    const faq = await t.api('POST', `/api/knowledge-bases/${baseId}/documents`, { body: { name: 'faq.csv', contentBase64: Buffer.from(FAQ).toString('base64') } })
    expect(faq.body.document).toMatchObject({ format: 'faq_csv', passages: 2 })
    const page = await t.api('POST', `/api/knowledge-bases/${baseId}/documents`, { body: { name: 'directions.html', content: PAGE } })
    expect(page.body.document).toMatchObject({ format: 'html', title: 'Finding us', passages: 2 })
    const detail = await t.api('GET', `/api/knowledge-bases/${baseId}/documents/${page.body.document.id}`)
    // the page's top heading is its title (its <title> only when it has none); nav, style and comments are gone
    expect(detail.body.passages.map((p: any) => [p.title, p.section, p.text])).toEqual([
      ['Finding us', '', 'We are at 12 Harbor Road, next to the Maplewood library.'],
      ['Finding us', 'By bus', 'Bus line 4 stops in front of the clinic every 15 minutes.'],
    ])
    const sat = (await t.api('GET', `/api/knowledge-bases/${baseId}/documents/${md.body.document.id}`)).body.passages[1]
    expect(sat).toMatchObject({ title: 'Opening hours', section: 'Saturday' })
  })

  test("search ranks the passage that answers a caller's question first, with a score and what an agent would say", async () => {
    const r = await t.api('GET', `/api/knowledge-bases/${baseId}/search?q=${encodeURIComponent('hi, what time do you close on saturday?')}`)
    expect(r.status, JSON.stringify(r.body)).toBe(200)
    const best = r.body.results[0]
    expect(best).toMatchObject({ documentName: 'hours.md', section: 'Saturday', title: 'Opening hours' })
    expect(best.score).toBeGreaterThanOrEqual(DEFAULT_MIN_SCORE)
    expect(best.spoken).toContain('close at 1 pm')
    const faq = (await t.api('GET', `/api/knowledge-bases/${baseId}/search?q=${encodeURIComponent('how much does parking cost')}`)).body.results[0]
    expect(faq).toMatchObject({ documentName: 'faq.csv', answer: 'Parking is free for the first two hours, then $2 an hour.' })
    expect(faq.spoken).toBe('Parking is free for the first two hours, then $2 an hour.')
    const none = (await t.api('GET', `/api/knowledge-bases/${baseId}/search?q=${encodeURIComponent('do you do cosmetic surgery')}`)).body.results
    expect(none.every((h: any) => h.score < 0.5)).toBe(true)
  })

  test('FTS query syntax in what a caller says is searched as words, never as syntax', async () => {
    for (const q of ['NEAR(saturday close', '"saturday', 'saturday" OR "*', 'kb : saturday', '^saturday AND NOT close', '{title}: hours', 'saturday*', ')(', '"', ':']) {
      const r = await t.api('GET', `/api/knowledge-bases/${baseId}/search?q=${encodeURIComponent(q)}`)
      expect(r.status, `${q}: ${JSON.stringify(r.body)}`).toBe(200)
    }
    const near = await t.api('GET', `/api/knowledge-bases/${baseId}/search?q=${encodeURIComponent('NEAR(saturday close')}`)
    expect(near.body.results[0].section).toBe('Saturday')
  })

  test('uploading a changed document under the same name rewrites only the passages that changed', async () => {
    const changed = HOURS.replace('close at 1 pm', 'close at 2 pm')
    const r = await t.api('POST', `/api/knowledge-bases/${baseId}/documents`, { body: { name: 'hours.md', content: changed } })
    expect(r.body).toMatchObject({ replaced: true, index: { added: 1, removed: 1, kept: 2 } })
    const best = (await t.api('GET', `/api/knowledge-bases/${baseId}/search?q=saturday+closing`)).body.results[0]
    expect(best.text).toContain('close at 2 pm')
    expect((await t.api('POST', `/api/knowledge-bases/${baseId}/reindex`)).body).toEqual({ documents: 3, added: 0, removed: 0, kept: 7 })
  })

  test('bad uploads get a 4xx and store nothing', async () => {
    const before = await documents(baseId)
    const upload = (body: unknown) => t.api('POST', `/api/knowledge-bases/${baseId}/documents`, { body })
    const cases: [string, unknown, number, string][] = [
      ['binary', { name: 'logo.png', contentBase64: Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 73, 72, 68, 82]).toString('base64') }, 422, 'UTF-8'],
      ['NUL in text', { name: 'a.txt', content: 'hello\u0000world' }, 422, 'binary'],
      ['Latin-1 bytes', { name: 'latin.txt', contentBase64: Buffer.from([0x43, 0x61, 0x66, 0xe9, 0x20, 0x6f, 0x70, 0x65, 0x6e]).toString('base64') }, 422, 'not UTF-8'],
      ['UTF-16', { name: 'u16.txt', contentBase64: Buffer.from('\ufeffhello', 'utf16le').toString('base64') }, 422, 'UTF-16'],
      ['replacement characters', { name: 'mangled.txt', content: 'Caf\ufffd open' }, 422, 'not UTF-8'],
      ['script', { name: 'page.html', content: '<html><body><p>Hi</p><script>alert(1)</script></body></html>' }, 422, 'script'],
      ['event handler', { name: 'page.html', content: '<p onclick="steal()">Hi</p>' }, 422, 'script'],
      ['javascript link', { name: 'page.html', content: '<a href="javascript:steal()">Hi</a>' }, 422, 'script'],
      ['both fields', { name: 'a.txt', content: 'x', contentBase64: 'eA==' }, 422, 'one of them'],
      ['neither', { name: 'a.txt' }, 422, 'one of them'],
      ['not base64', { name: 'a.txt', contentBase64: '***' }, 422, 'base64'],
      ['empty', { name: 'a.txt', content: '   \n' }, 422, 'empty'],
      ['CSV without rows', { name: 'faq.csv', content: 'question,answer\n' }, 422, 'no rows'],
      ['CSV quote never closed', { name: 'faq2.csv', content: 'question,answer\n"open,answer\n' }, 422, 'not closed'],
      ['control characters in the name', { name: 'a\nb.txt', content: 'x' }, 422, 'name'],
    ]
    for (const [what, body, status, says] of cases) {
      const r = await upload(body)
      expect(r.status, `${what}: ${JSON.stringify(r.body)}`).toBe(status)
      expect(r.body.error.message, what).toContain(says)
    }
    expect(await documents(baseId)).toEqual(before)
  })

  test('a document larger than KNOWLEDGE_MAX_DOCUMENT_BYTES gets 413 and the workspace limits hold', async () => {
    const small = await startTestAppliance({ KNOWLEDGE_MAX_DOCUMENT_BYTES: 1000, KNOWLEDGE_MAX_DOCUMENTS: 2, KNOWLEDGE_MAX_WORKSPACE_BYTES: 1500, KNOWLEDGE_MAX_BASES: 1 })
    try {
      const kb = (await small.api('POST', '/api/knowledge-bases', { body: { name: 'one' } })).body.knowledgeBase.id
      expect((await small.api('POST', '/api/knowledge-bases', { body: { name: 'two' } })).body.error.message).toContain('KNOWLEDGE_MAX_BASES')
      const huge = await small.api('POST', `/api/knowledge-bases/${kb}/documents`, { body: { name: 'big.txt', content: 'word '.repeat(201) } })
      expect(huge.status).toBe(413)
      expect(huge.body.error.message).toContain('KNOWLEDGE_MAX_DOCUMENT_BYTES')
      const hugeBase64 = await small.api('POST', `/api/knowledge-bases/${kb}/documents`, { body: { name: 'big.txt', contentBase64: Buffer.from('word '.repeat(300)).toString('base64') } })
      expect(hugeBase64.status).toBe(413)
      expect((await small.api('POST', `/api/knowledge-bases/${kb}/documents`, { body: { name: 'a.txt', content: 'a '.repeat(450) } })).status).toBe(200)
      const over = await small.api('POST', `/api/knowledge-bases/${kb}/documents`, { body: { name: 'b.txt', content: 'b '.repeat(450) } })
      expect(over.body.error.message).toContain('KNOWLEDGE_MAX_WORKSPACE_BYTES')
      // replacing a document counts its new size, not both
      expect((await small.api('POST', `/api/knowledge-bases/${kb}/documents`, { body: { name: 'a.txt', content: 'c '.repeat(450) } })).status).toBe(200)
      expect((await small.api('POST', `/api/knowledge-bases/${kb}/documents`, { body: { name: 'b.txt', content: 'b b' } })).status).toBe(200)
      expect((await small.api('POST', `/api/knowledge-bases/${kb}/documents`, { body: { name: 'c.txt', content: 'c c' } })).body.error.message).toContain('KNOWLEDGE_MAX_DOCUMENTS')
      expect((await small.api('GET', `/api/knowledge-bases/${kb}/documents`)).body.documents.map((d: any) => d.name).sort()).toEqual(['a.txt', 'b.txt'])
    } finally {
      await small.stop()
    }
  })

  test('another workspace can neither see, search, change nor delete the base or its documents', async () => {
    const ws = await t.api('POST', '/api/workspaces', { body: { name: 'Other' } })
    const other = ws.body.apiKey.key as string
    const doc = (await documents(baseId))[0]
    const paths: [string, string, unknown?][] = [
      ['GET', `/api/knowledge-bases/${baseId}`],
      ['PATCH', `/api/knowledge-bases/${baseId}`, { name: 'mine' }],
      ['DELETE', `/api/knowledge-bases/${baseId}`],
      ['GET', `/api/knowledge-bases/${baseId}/documents`],
      ['POST', `/api/knowledge-bases/${baseId}/documents`, { name: 'x.txt', content: 'planted' }],
      ['GET', `/api/knowledge-bases/${baseId}/documents/${doc.id}`],
      ['DELETE', `/api/knowledge-bases/${baseId}/documents/${doc.id}`],
      ['POST', `/api/knowledge-bases/${baseId}/reindex`],
      ['GET', `/api/knowledge-bases/${baseId}/search?q=saturday`],
    ]
    for (const [method, path, body] of paths) {
      const r = await t.api(method, path, { key: other, body })
      expect(r.status, `${method} ${path}`).toBe(404)
    }
    expect((await t.api('GET', '/api/knowledge-bases', { key: other })).body.knowledgeBases).toEqual([])
    // its own base with the same words finds only its own passages
    const mine = (await t.api('POST', '/api/knowledge-bases', { key: other, body: { name: 'mine' } })).body.knowledgeBase.id
    await t.api('POST', `/api/knowledge-bases/${mine}/documents`, { key: other, body: { name: 'n.md', content: '# Saturday\nWe never open on Saturday.' } })
    const found = (await t.api('GET', `/api/knowledge-bases/${mine}/search?q=saturday`, { key: other })).body.results
    expect(found.map((h: any) => h.text)).toEqual(['We never open on Saturday.'])
    expect((await t.api('GET', `/api/knowledge-bases/${baseId}`)).body.knowledgeBase.name).toBe('Harbor clinic')
    expect((await documents(baseId)).length).toBe(3)
  })

  test('members upload and search; only admins delete a base', async () => {
    const member = await memberKey(t, 'kb-member@example.com')
    const kb = (await t.api('POST', '/api/knowledge-bases', { key: member.key, body: { name: 'member base' } })).body.knowledgeBase.id
    expect((await t.api('POST', `/api/knowledge-bases/${kb}/documents`, { key: member.key, body: { name: 'a.txt', content: 'Saturday hours' } })).status).toBe(200)
    expect((await t.api('DELETE', `/api/knowledge-bases/${kb}`, { key: member.key })).status).toBe(403)
    expect((await t.api('DELETE', `/api/knowledge-bases/${kb}`)).body).toEqual({ ok: true })
    expect((await t.api('GET', `/api/knowledge-bases/${kb}`)).status).toBe(404)
  })

  test('deleting a document removes its passages from search', async () => {
    const doc = (await documents(baseId)).find((d: any) => d.name === 'directions.html')
    expect((await t.api('DELETE', `/api/knowledge-bases/${baseId}/documents/${doc.id}`)).body).toEqual({ ok: true })
    const r = (await t.api('GET', `/api/knowledge-bases/${baseId}/search?q=bus+line`)).body.results
    expect(r.some((h: any) => h.documentName === 'directions.html')).toBe(false)
  })

  test("agents link their workspace's bases only; a test run's answer node says the passage; deleting a base unlinks it", async () => {
    const other = (await t.api('POST', '/api/workspaces', { body: { name: 'Elsewhere' } })).body.apiKey.key as string
    const foreign = (await t.api('POST', '/api/knowledge-bases', { key: other, body: { name: 'theirs' } })).body.knowledgeBase.id
    const refused = await t.api('POST', '/api/agents', { body: { name: 'x', knowledgeBaseIds: [foreign, 'kb_nothing', baseId, baseId] } })
    expect(refused.status).toBe(422)
    expect(refused.body.error.details.fields.map((f: any) => [f.path, f.message])).toEqual([
      ['knowledgeBaseIds[0]', 'is no knowledge base of this workspace'],
      ['knowledgeBaseIds[1]', 'is no knowledge base of this workspace'],
      ['knowledgeBaseIds[3]', 'is listed twice'],
    ])
    const kb = (await t.api('POST', '/api/knowledge-bases', { body: { name: 'linked' } })).body.knowledgeBase.id
    await t.api('POST', `/api/knowledge-bases/${kb}/documents`, { body: { name: 'h.md', content: '## Saturday\nWe close at 1 pm on Saturdays.' } })
    const agent = (await t.api('POST', '/api/agents', { body: { name: 'desk', knowledgeBaseIds: [kb] } })).body.agent
    expect(agent).toMatchObject({ knowledgeBaseIds: [kb], knowledgeAutoSearch: false })
    const workflow = {
      nodes: [{ id: 'start', type: 'start', config: {} }, { id: 'a', type: 'answer', config: {} }, { id: 'no', type: 'end', config: { text: 'No idea.' } }],
      edges: [{ from: 'start', to: 'a' }, { from: 'a', to: 'no', condition: { type: 'no_match' } }],
    }
    const run = await t.api('POST', `/api/agents/${agent.id}/workflow/test-run`, { body: { workflow, inputs: [{ role: 'user', content: 'when do you close on saturday' }] } })
    expect(run.status, JSON.stringify(run.body)).toBe(200)
    expect(run.body.responses).toEqual([{ nodeId: 'a', output: 'We close at 1 pm on Saturdays.', sources: [{ passageId: expect.any(Number), documentName: 'h.md', section: 'Saturday', score: expect.any(Number) }] }])
    expect(run.body.finalAction).toBe('awaiting_input')
    expect((await t.api('DELETE', `/api/knowledge-bases/${kb}`)).status).toBe(200)
    const after = (await t.api('GET', `/api/agents/${agent.id}`)).body.agent
    expect(after.knowledgeBaseIds).toEqual([])
    expect(after.version).toBe(agent.version + 1)
  })
})
