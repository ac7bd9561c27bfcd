// Another workspace's text is no signal in a search: the engines' term statistics are the base's
// own (an FTS5 table per base on SQLite; ts_rank on PostgreSQL knows no other passage), so the
// word oracle of issue 45 finds nothing, and scores and orders are the same with and without
// another workspace's documents. Runs on SQLite, and on PostgreSQL in its pass.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { type Api, startTestAppliance, type TestAppliance } from '../../helpers/appliance.ts'

let t: TestAppliance
let other: string

const PROBES = Array.from({ length: 100 }, (_, i) => 7700 + i)

beforeAll(async () => {
  t = await startTestAppliance({ RATE_LIMIT_PER_SEC: 0 })
  other = (await t.api('POST', '/api/workspaces', { body: { name: 'Tenant B' } })).body.apiKey.key as string
})
afterAll(() => t.stop())

async function baseWith(api: Api, key: string | undefined, name: string, documents: [string, string][]): Promise<string> {
  const kb = await api('POST', '/api/knowledge-bases', { key, body: { name } })
  expect(kb.status, JSON.stringify(kb.body)).toBe(200)
  for (const [doc, content] of documents) {
    const r = await api('POST', `/api/knowledge-bases/${kb.body.knowledgeBase.id}/documents`, { key, body: { name: doc, content } })
    expect(r.status, JSON.stringify(r.body)).toBe(200)
  }
  return kb.body.knowledgeBase.id
}

const search = async (base: string, q: string, limit: number) => {
  const r = await t.api('GET', `/api/knowledge-bases/${base}/search?q=${encodeURIComponent(q)}&limit=${limit}`)
  expect(r.status, JSON.stringify(r.body)).toBe(200)
  return r.body.results as { passageId: number; text: string; score: number }[]
}

test('the word oracle: which passage comes first for "<n> 9090" never tells which numbers another workspace holds', async () => {
  await baseWith(t.api, other, 'vault', [['vault.md', '# Vault\nvault code is 7781']])
  const passages = PROBES.map((n) => `## C${n}\nentry ${n}`).join('\n\n')
  const mine = await baseWith(t.api, undefined, 'entries', [['entries.md', `# Entries\n\n${passages}`], ['control.md', '# Entries\n\n## C9090\nentry 9090']])
  const controlFirst: number[] = []
  for (const n of PROBES) {
    const [top] = await search(mine, `${n} 9090`, 1)
    expect(top, `q=${n} 9090`).toBeDefined()
    if (top!.text === 'entry 9090') controlFirst.push(n)
  }
  // whichever way a tie goes, it goes the same way for every n: no n stands out
  expect(controlFirst.length === 0 || controlFirst.length === PROBES.length, `the control came first for ${controlFirst.join(', ')}`).toBe(true)
})

test("scores and orders are identical with and without another workspace's documents", async () => {
  const faq = [
    'question,answer',
    '"When is the pharmacy open?","The pharmacy opens at 8 am and closes at 6 pm on weekdays."',
    '"Is parking free?","Parking is free for two hours; after that the garage charges by the hour."',
    '"Can I bring my dog?","Dogs are welcome in the garden, not in the pharmacy or the wards."',
    '"Where do I pay for parking?","Pay at the machine by the garage exit, by card or coins."',
  ].join('\n')
  const notes = '# Visiting\n\n## Hours\nVisiting hours are 2 to 8 pm. The garden closes at dusk.\n\n## Garage\nThe garage has 300 places and two levels for parking.\n'
  const mine = await baseWith(t.api, undefined, 'clinic', [['faq.csv', faq], ['visiting.md', notes]])
  const queries = ['parking garage', 'pharmacy hours', 'dog garden', 'garden parking', 'pay parking card', 'when does the garden close', 'garage hours']
  const before = await Promise.all(queries.map((q) => search(mine, q, 5)))
  // another workspace writes the same words, many times over, with other lengths
  const flood = Array.from({ length: 60 }, (_, i) => `## Note ${i}\n${'parking pharmacy '.repeat(1 + (i % 7))}${i % 3 ? '' : 'dog card'}`).join('\n\n')
  await baseWith(t.api, other, 'flood', [['flood.md', `# Flood\n\n${flood}`]])
  const after = await Promise.all(queries.map((q) => search(mine, q, 5)))
  expect(after).toEqual(before)
  expect(before.every((r) => r.length > 1)).toBe(true)
})
