// Answers a caller can trust (issue 43), against a real appliance and its SQLite file (PostgreSQL
// in its pass): everyday words find the documents' words, fillers never lower a score, the
// excerpt spoken is the sentence that answers, and a question the documents do not answer scores
// under the threshold although its words are there.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { startTestAppliance, type TestAppliance } from '../../helpers/appliance.ts'
import { KNOWLEDGE_MIN_SCORE, searchKnowledge } from '../../../src/features/knowledge/index.ts'

let t: TestAppliance
let baseId: string

const PICKUP = `# Bulky item collection

## Appliances
We collect refrigerators, freezers and air conditioners from the curb on your regular collection day. Doors must be removed from refrigerators and freezers before they are put out. Appliances that hold refrigerant are taken to a licensed recycler.

## Fees
Bulky item collection is booked online or by phone. The city provides one free bulky pickup a year for each household. After that, each item is $35. Payment is taken when you book, by card only.

## Missed collections
If your bin was not emptied, report it by 5 pm on the day after your collection day. A crew returns within two working days. Bins must be at the curb by 6 am, with the lid closed.

## Yard waste
Yard waste goes in the green cart. Branches must be cut to four feet or shorter and tied in bundles. Yard waste is collected every other week from April to November.
`

const search = async (q: string, limit = 3) => {
  const r = await t.api('GET', `/api/knowledge-bases/${baseId}/search?limit=${limit}&q=${encodeURIComponent(q)}`)
  expect(r.status, JSON.stringify(r.body)).toBe(200)
  return r.body.results as { text: string; score: number; spoken: string; section: string }[]
}

const spoken = (q: string, maxChars: number) => searchKnowledge(t.appliance.database.db, t.workspaceId, [baseId], q, 1, maxChars)

beforeAll(async () => {
  t = await startTestAppliance({ RATE_LIMIT_PER_SEC: 0 })
  baseId = (await t.api('POST', '/api/knowledge-bases', { body: { name: 'Sanitation' } })).body.knowledgeBase.id
  const r = await t.api('POST', `/api/knowledge-bases/${baseId}/documents`, { body: { name: 'bulky.md', content: PICKUP } })
  expect(r.status, JSON.stringify(r.body)).toBe(200)
})
afterAll(() => t.stop())

test('a question with "fridge" finds the passage about refrigerators (WordNet: a fridge is a refrigerator)', async () => {
  const [best] = await search('hey um will you guys take my old fridge')
  expect(best?.section).toBe('Appliances')
  expect(best!.score).toBeGreaterThan(0)
})

test('fillers ("like", "gonna", "supposed to", "you know", "kinda") never lower a score', async () => {
  const [plain] = await search('when is yard waste collected')
  const [filled] = await search('so like, you know, when is the yard waste gonna be, like, collected, am I supposed to know that, kinda basically')
  expect(filled?.section).toBe(plain!.section)
  expect(filled!.score).toBeGreaterThanOrEqual(plain!.score)
})

test('the spoken excerpt of a "how much" question holds the price sentence, within maxChars', async () => {
  // as an answer node with maxChars 80 searches: one sentence fits
  const [best] = await spoken('um so how much is a bulky pickup', 80)
  expect(best?.section).toBe('Fees')
  expect(best!.spoken).toContain('each item is $35')
  expect(best!.spoken.length).toBeLessThanOrEqual(80)
})

test('a "when" question hears the time, a "can I" question the yes or no', async () => {
  const [when] = await spoken('my bin wasnt emptied, when do I have to report it by', 100)
  expect(when!.spoken).toContain('by 5 pm on the day after')
  // the run said holds the caller's words: with room for three sentences, the payment's joins the pickup's
  const [can] = await spoken('can I pay for a bulky pickup with cash', 160)
  expect(can!.spoken).toContain('by card only')
})

test('a question the documents do not answer scores under the threshold, although its words are in the base', async () => {
  // each word is in the base (crew, return, time of day; yard waste; fees, collection), but no
  // passage says when the crew comes for yard waste, nor what collecting it costs
  for (const q of ['what time does the crew return for yard waste', 'how much does yard waste collection cost']) {
    const [best] = await search(q)
    expect(best, q).toBeDefined()
    expect(best!.score, q).toBeLessThan(KNOWLEDGE_MIN_SCORE)
  }
  // while the question it does answer passes it
  const [answered] = await search('when is yard waste collected')
  expect(answered!.score).toBeGreaterThanOrEqual(KNOWLEDGE_MIN_SCORE)
})
