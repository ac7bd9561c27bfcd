// An agent's vocabulary (issue 42): the words its callers say that a general recogniser gets
// wrong. Stored trimmed, returned as given, carried into each call's snapshot; an entry no
// recogniser can listen for is a 422 naming it, and changes nothing.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { startTestAppliance, type TestAppliance } from '../helpers/appliance.ts'

let t: TestAppliance
beforeAll(async () => {
  t = await startTestAppliance()
})
afterAll(() => t.stop())

describe('agent vocabulary', () => {
  test('an agent has none until given one; entries are kept trimmed, in order', async () => {
    const created = await t.api('POST', '/api/agents', { body: { name: 'Vocab' } })
    expect(created.body.agent.vocabulary).toEqual([])
    const id = created.body.agent.id
    const r = await t.api('PATCH', `/api/agents/${id}`, { body: { vocabulary: ['  Zorblax ', 'Quentin   Street', "O'Hara", 'Dr. Chen'] } })
    expect(r.status).toBe(200)
    expect(r.body.agent.vocabulary).toEqual(['Zorblax', 'Quentin Street', "O'Hara", 'Dr. Chen'])
    expect((await t.api('GET', `/api/agents/${id}`)).body.agent.vocabulary).toEqual(['Zorblax', 'Quentin Street', "O'Hara", 'Dr. Chen'])
  })

  test('entries without letters, with symbols, too long or repeated are refused by path, and nothing changes', async () => {
    const a = (await t.api('POST', '/api/agents', { body: { name: 'Vocab refusals', vocabulary: ['Zorblax'] } })).body.agent
    const bad = await t.api('PATCH', `/api/agents/${a.id}`, { body: { vocabulary: ['12345', 'ok word', 'a <b>', 'one two three four five six seven', 'ZORBLAX', 'zorblax'], name: 'Renamed' } })
    expect(bad.status).toBe(422)
    expect(bad.body.error.details.fields.map((f: { path: string }) => f.path)).toEqual(['vocabulary[0]', 'vocabulary[2]', 'vocabulary[3]', 'vocabulary[5]'])
    const blank = await t.api('PATCH', `/api/agents/${a.id}`, { body: { vocabulary: [''] } })
    expect(blank.status).toBe(422)
    const many = await t.api('PATCH', `/api/agents/${a.id}`, { body: { vocabulary: Array.from({ length: 201 }, (_, i) => `word${i}`) } })
    expect(many.status).toBe(422)
    const after = (await t.api('GET', `/api/agents/${a.id}`)).body.agent
    expect([after.name, after.vocabulary]).toEqual(['Vocab refusals', ['Zorblax']])
  })
})
