// Test cases of an agent over the HTTP API: written, paged, changed and deleted; bad input is a
// 422 naming its field and changes nothing; another workspace's agent and cases are 404.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { apiClient, startTestAppliance, type Api, type TestAppliance } from '../../helpers/appliance.ts'

let t: TestAppliance
let other: Api
let agentId: string
beforeAll(async () => {
  t = await startTestAppliance()
  const ws = await t.api('POST', '/api/workspaces', { body: { name: 'Other' } })
  other = apiClient(t.url, ws.body.apiKey.key)
  agentId = (await t.api('POST', '/api/agents', { body: { name: 'Desk' } })).body.agent.id
})
afterAll(() => t.stop())

const paths = (body: any): string[] => body.error.details.fields.map((f: { path: string }) => f.path)
const CASE = {
  name: 'caller asks for the hours',
  caller: { turns: [{ type: 'keys', digits: '1' }, { type: 'silence', ms: 500 }, { type: 'say', text: 'thank you' }, { type: 'interrupt', text: 'wait', afterMs: 300 }] },
  expectations: [
    { type: 'said', phrase: 'We are open Monday to Friday', turn: 1 },
    { type: 'said', pattern: 'good\\s*bye', flags: 'i' },
    { type: 'node_reached', nodeId: 'hours' },
    { type: 'path', nodes: ['start', 'hours', 'bye'] },
    { type: 'tool_called', tool: 'http_request', arguments: { url: 'https://example.com' } },
    { type: 'transferred', target: 'sip:desk@127.0.0.1' },
    { type: 'ended', outcome: 'completed' },
    { type: 'knowledge_used', passage: 'opening hours' },
    { type: 'response_gap_p95', maxMs: 1500 },
  ],
}

describe('agent test cases', () => {
  test('a case is created with the default caller voice, read back, listed newest first in pages, patched and deleted', async () => {
    const made = await t.api('POST', `/api/agents/${agentId}/tests`, { body: CASE })
    expect(made.status, JSON.stringify(made.body)).toBe(200)
    const c = made.body.test
    expect(c).toMatchObject({ agentId, name: CASE.name, source: 'api', expectations: CASE.expectations })
    expect(c.caller).toEqual({ turns: CASE.caller.turns, voice: { engine: 'espeak-ng', voice: 'en-us', phoneBand: false } })
    expect((await t.api('GET', `/api/agents/${agentId}/tests/${c.id}`)).body.test).toEqual(c)

    const second = (await t.api('POST', `/api/agents/${agentId}/tests`, { body: { ...CASE, name: 'second', caller: { ...CASE.caller, voice: { engine: 'festival', phoneBand: true, noiseSnrDb: 20 } } } })).body.test
    expect(second.caller.voice).toEqual({ engine: 'festival', voice: 'kal_diphone', phoneBand: true, noiseSnrDb: 20 })
    const third = (await t.api('POST', `/api/agents/${agentId}/tests`, { body: { ...CASE, name: 'third' } })).body.test
    const page1 = await t.api('GET', `/api/agents/${agentId}/tests?limit=2`)
    expect(page1.body.tests.map((x: any) => x.id)).toEqual([third.id, second.id])
    const page2 = await t.api('GET', `/api/agents/${agentId}/tests?limit=2&cursor=${page1.body.nextCursor}`)
    expect(page2.body.tests.map((x: any) => x.id)).toEqual([c.id])
    expect(page2.body.nextCursor).toBeNull()

    const patched = await t.api('PATCH', `/api/agents/${agentId}/tests/${c.id}`, { body: { name: 'renamed', expectations: [{ type: 'ended' }] } })
    expect(patched.status, JSON.stringify(patched.body)).toBe(200)
    expect(patched.body.test).toMatchObject({ name: 'renamed', expectations: [{ type: 'ended' }], caller: c.caller })
    expect((await t.api('GET', `/api/agents/${agentId}/tests/${c.id}`)).body.test.name).toBe('renamed')

    expect((await t.api('DELETE', `/api/agents/${agentId}/tests/${c.id}`)).status).toBe(200)
    expect((await t.api('GET', `/api/agents/${agentId}/tests/${c.id}`)).status).toBe(404)
    expect((await t.api('DELETE', `/api/agents/${agentId}/tests/${c.id}`)).status).toBe(404)
  })

  test('bad cases are 422 naming each field, and nothing is stored', async () => {
    const before = (await t.api('GET', `/api/agents/${agentId}/tests?limit=100`)).body.tests.length
    const bad = async (body: unknown) => {
      const r = await t.api('POST', `/api/agents/${agentId}/tests`, { body })
      expect(r.status, JSON.stringify(r.body)).toBe(422)
      expect(r.body.error.code).toBe('validation_failed')
      return paths(r.body)
    }
    expect(await bad({ ...CASE, name: '  ' })).toContain('name')
    expect(await bad({ ...CASE, caller: { turns: [] } })).toContain('caller.turns')
    expect(await bad({ ...CASE, caller: { turns: [{ type: 'silence', ms: 500 }] } })).toEqual(['caller.turns'])
    expect((await bad({ ...CASE, caller: { turns: [{ type: 'keys', digits: 'x' }] } })).some((p) => p.startsWith('caller.turns[0]'))).toBe(true)
    // the caller may not speak with the agent's own voice (flite, FLITE_VOICE by default)
    const own = (await t.api('GET', `/api/agents/${agentId}`)).body.agent.voice
    expect(own.provider).toBe('flite')
    expect(await bad({ ...CASE, caller: { turns: CASE.caller.turns, voice: { engine: 'flite', voice: own.voiceId } } })).toEqual(['caller.voice'])
    expect(await bad({ ...CASE, expectations: [{ type: 'said' }] })).toEqual(['expectations[0]'])
    expect(await bad({ ...CASE, expectations: [{ type: 'said', phrase: 'a', pattern: 'b' }] })).toEqual(['expectations[0]'])
    expect(await bad({ ...CASE, expectations: [{ type: 'ended' }, { type: 'said', pattern: '(' }] })).toEqual(['expectations[1].pattern'])
    // a pattern that could stall the event loop on a long agent line is refused at save time
    const slow = await t.api('POST', `/api/agents/${agentId}/tests`, { body: { ...CASE, expectations: [{ type: 'said', pattern: '^(\\w+\\s?)+$' }] } })
    expect([slow.status, paths(slow.body)]).toEqual([422, ['expectations[0].pattern']])
    expect(JSON.stringify(slow.body)).toContain('exponential time')
    expect(await bad({ ...CASE, expectations: [{ type: 'said', pattern: '.*.*.*bye' }] })).toEqual(['expectations[0].pattern'])
    expect(await bad({ ...CASE, expectations: [{ type: 'ended', outcome: 'exploded' }] })).toEqual(['expectations[0].outcome'])
    expect(await bad({ ...CASE, expectations: [] })).toContain('expectations')
    expect(await bad({ ...CASE, colour: 'blue' })).toContain('colour')
    expect((await t.api('GET', `/api/agents/${agentId}/tests?limit=100`)).body.tests.length).toBe(before)

    const kept = (await t.api('POST', `/api/agents/${agentId}/tests`, { body: CASE })).body.test
    const r = await t.api('PATCH', `/api/agents/${agentId}/tests/${kept.id}`, { body: { name: 'x', expectations: [{ type: 'said', pattern: '[' }] } })
    expect(r.status).toBe(422)
    expect(paths(r.body)).toEqual(['expectations[0].pattern'])
    expect((await t.api('GET', `/api/agents/${agentId}/tests/${kept.id}`)).body.test.name).toBe(CASE.name)
  })

  test("another workspace's agent and its cases are 404 for every verb, and stay as they were", async () => {
    const theirAgent = (await other('POST', '/api/agents', { body: { name: 'Theirs' } })).body.agent.id
    const theirs = (await other('POST', `/api/agents/${theirAgent}/tests`, { body: CASE })).body.test
    expect((await t.api('GET', `/api/agents/${theirAgent}/tests`)).status).toBe(404)
    expect((await t.api('POST', `/api/agents/${theirAgent}/tests`, { body: CASE })).status).toBe(404)
    expect((await t.api('POST', `/api/agents/${theirAgent}/tests/generate`)).status).toBe(404)
    expect((await t.api('GET', `/api/agents/${theirAgent}/tests/${theirs.id}`)).status).toBe(404)
    expect((await t.api('PATCH', `/api/agents/${theirAgent}/tests/${theirs.id}`, { body: { name: 'mine' } })).status).toBe(404)
    expect((await t.api('DELETE', `/api/agents/${theirAgent}/tests/${theirs.id}`)).status).toBe(404)
    // their case through our own agent's path is not found either
    expect((await t.api('GET', `/api/agents/${agentId}/tests/${theirs.id}`)).status).toBe(404)
    const still = await other('GET', `/api/agents/${theirAgent}/tests/${theirs.id}`)
    expect(still.body.test).toEqual(theirs)
    expect((await t.api('GET', '/api/agents/agent_missing/tests')).status).toBe(404)
  })

  test("deleting the agent deletes its cases", async () => {
    const a = (await t.api('POST', '/api/agents', { body: { name: 'Short-lived' } })).body.agent.id
    await t.api('POST', `/api/agents/${a}/tests`, { body: CASE })
    expect((await t.api('DELETE', `/api/agents/${a}`)).status).toBe(200)
    const left = await t.appliance.database.db.selectFrom('agent_tests').select('id').where('agent_id', '=', a).execute()
    expect(left).toEqual([])
  })

  test('generate makes one case per path to an end node from the template workflow, each stored as source workflow', async () => {
    const a = (await t.api('POST', '/api/agents', { body: { name: 'Bookings', template: 'booking' } })).body.agent.id
    const r = await t.api('POST', `/api/agents/${a}/tests/generate`)
    expect(r.status, JSON.stringify(r.body)).toBe(200)
    const byPath = r.body.tests.map((c: any) => c.expectations[0].nodes.join('>'))
    expect(byPath.sort()).toEqual(['start>bye', 'start>book>noted>bye', 'start>change>noted>bye'].sort())
    expect(r.body.tests.every((c: any) => c.source === 'workflow')).toBe(true)
    const listed = (await t.api('GET', `/api/agents/${a}/tests?limit=100`)).body.tests
    expect(listed).toHaveLength(3)
    const none = (await t.api('POST', '/api/agents', { body: { name: 'No workflow' } })).body.agent.id
    expect((await t.api('POST', `/api/agents/${none}/tests/generate`)).body).toEqual({ tests: [] })
  })

  test("generate also makes a case per FAQ question of the agent's knowledge bases, expecting the answer's first words from the base", async () => {
    const base = (await t.api('POST', '/api/knowledge-bases', { body: { name: 'Clinic' } })).body.knowledgeBase.id
    const FAQ = 'question,answer\n"How much is parking?","Parking is free for the first two hours, then two dollars an hour."\nDo you take walk-ins?,"Yes, walk-ins are seen from eight to ten in the morning."\n'
    const doc = await t.api('POST', `/api/knowledge-bases/${base}/documents`, { body: { name: 'faq.csv', contentBase64: Buffer.from(FAQ).toString('base64') } })
    expect(doc.status, JSON.stringify(doc.body)).toBe(200)
    await t.api('POST', `/api/knowledge-bases/${base}/documents`, { body: { name: 'notes.md', content: '# Notes\n\nNot an FAQ.' } })
    const a = (await t.api('POST', '/api/agents', { body: { name: 'Clinic desk', template: 'receptionist', knowledgeBaseIds: [base] } })).body.agent.id
    const r = await t.api('POST', `/api/agents/${a}/tests/generate`)
    expect(r.status, JSON.stringify(r.body)).toBe(200)
    const faq = r.body.tests.filter((c: any) => c.source === 'knowledge')
    expect(faq.map((c: any) => ({ name: c.name, caller: c.caller.turns, expectations: c.expectations }))).toEqual([
      { name: 'FAQ: How much is parking?', caller: [{ type: 'say', text: 'How much is parking?' }], expectations: [{ type: 'knowledge_used', passage: 'Parking is free for the first two hours,' }] },
      { name: 'FAQ: Do you take walk-ins?', caller: [{ type: 'say', text: 'Do you take walk-ins?' }], expectations: [{ type: 'knowledge_used', passage: 'Yes, walk-ins are seen from eight to ten' }] },
    ])
    expect(r.body.tests.filter((c: any) => c.source === 'workflow')).toHaveLength(3)
  })
})
