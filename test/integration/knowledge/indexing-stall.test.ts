// Knowledge indexing never holds the event loop that HTTP and SIP share (issue 45, finding 1): a
// 2 MiB FAQ of 130,000 rows is uploaded, replaced with a row inserted at the top (every passage moves), re-indexed
// and deleted, then its base deleted, while /health and SIP OPTIONS keep being answered; a
// document of more passages than KNOWLEDGE_MAX_DOCUMENT_PASSAGES and 2 MiB of empty headings are
// refused with 422 without holding it. The figures are scripts/bench/knowledge-stall.ts's.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { startTestAppliance, type TestAppliance } from '../../helpers/appliance.ts'
import { LagProbe, lagBudgetMs } from '../../helpers/lag-probe.ts'
import { SipPeer } from '../../helpers/sip-peer.ts'
import { header } from '../../../src/realtime/telephony/sip/message.ts'

// The event loop may be held at most three times the benchmark's target of 100 ms, scaled by how
// much slower this machine is now than the development machine (lagBudgetMs): there the holds are
// 80-250 ms on a machine with a load of 10 on 2 cores; before the fix 500-850 ms (130,000 UPDATEs of
// moved passages in a row, one cascade DELETE, the matching in one loop, the WAL checkpointed on
// the event loop after the commit).
// Deleting a base, and the refused documents, are bounded by LAG_BOUND_MS only (a generous bound).
const LAG_BOUND_MS = 1000
const ROWS = 130_000
const MAX_PASSAGES = 140_000
let t: TestAppliance
let sip: SipPeer
const probe = new LagProbe()

beforeAll(async () => {
  t = await startTestAppliance({ RATE_LIMIT_PER_SEC: 0, KNOWLEDGE_MAX_DOCUMENT_PASSAGES: MAX_PASSAGES })
  sip = await SipPeer.udp(t.appliance.sip.udp!)
  probe.start()
})
afterAll(async () => {
  probe.stop()
  sip?.close()
  await t?.stop()
})

const OPTIONS = (port: number, callId: string) =>
  `OPTIONS sip:x@127.0.0.1 SIP/2.0\r\nVia: SIP/2.0/UDP 127.0.0.1:${port};branch=z9hG4bK${callId}\r\nFrom: <sip:t@127.0.0.1>;tag=t\r\nTo: <sip:x@127.0.0.1>\r\nCall-ID: ${callId}\r\nCSeq: 1 OPTIONS\r\nContent-Length: 0\r\n\r\n`

/** Runs the request while /health and SIP OPTIONS are asked, one after the other; how many were answered and the worst lag. */
async function whileAnswering(name: string, request: Promise<{ status: number; body: any }>) {
  probe.reset()
  let done = false
  void request.finally(() => (done = true))
  let answered = 0
  while (!done) {
    const id = `${name}-${answered}`
    sip.send(OPTIONS(sip.port, id))
    const [health] = await Promise.all([fetch(`${t.url}/health`), sip.waitFor((m) => m.kind === 'response' && header(m, 'call-id') === id, 10_000)])
    expect(health.status).toBe(200)
    answered++
  }
  return { response: await request, answered, lagMs: probe.worstMs }
}

const faq = (top = '') => `question,answer\n${top}${Array.from({ length: ROWS }, (_, i) => `q${100_000 + i},a${100_000 + i}\n`).join('')}`

test('a large FAQ is uploaded, replaced, re-indexed and deleted, its base too, while /health and SIP OPTIONS are answered', async () => {
  const kb = (await t.api('POST', '/api/knowledge-bases', { body: { name: 'large' } })).body.knowledgeBase.id
  const docs = `/api/knowledge-bases/${kb}/documents`
  const steps: [string, () => Promise<{ status: number; body: any }>][] = [
    ['upload', () => t.api('POST', docs, { body: { name: 'faq.csv', content: faq() } })],
    ['replace', () => t.api('POST', docs, { body: { name: 'faq.csv', content: faq('q0,a new first row\n') } })],
    ['reindex', () => t.api('POST', `/api/knowledge-bases/${kb}/reindex`)],
  ]
  const results: Record<string, any> = {}
  for (const [name, run] of steps) {
    const budgetMs = await lagBudgetMs(100, true)
    const { response, answered, lagMs } = await whileAnswering(name, run())
    expect(response.status, JSON.stringify(response.body).slice(0, 300)).toBe(200)
    expect(answered, name).toBeGreaterThan(0)
    expect(lagMs, name).toBeLessThan(budgetMs)
    results[name] = response.body
  }
  expect(results.upload.document.passages).toBe(ROWS)
  expect(results.replace.index).toEqual({ added: 1, removed: 0, kept: ROWS })
  expect(results.reindex).toEqual({ documents: 1, added: 0, removed: 0, kept: ROWS + 1 })
  // the moved passages keep their rows, at their new positions: the first row is the new one
  const doc = await t.api('GET', `${docs}/${results.upload.document.id}`)
  expect(doc.body.passages.slice(0, 2).map((p: any) => [p.position, p.section])).toEqual([[0, 'q0'], [1, 'q100000']])
  expect((await t.api('GET', `/api/knowledge-bases/${kb}/search?q=q100000&limit=1`)).body.results[0].answer).toBe('a100000')
  const second = await t.api('POST', docs, { body: { name: 'again.csv', content: faq() } })
  expect(second.status).toBe(200)
  const budgetMs = await lagBudgetMs(100, true)
  const deleted = await whileAnswering('delete', t.api('DELETE', `${docs}/${results.upload.document.id}`))
  expect([deleted.response.status, deleted.answered > 0, deleted.lagMs < budgetMs]).toEqual([200, true, true])
  expect((await t.api('GET', `/api/knowledge-bases/${kb}/search?q=q100000&limit=1`)).body.results[0].documentName).toBe('again.csv')
  const base = await whileAnswering('base', t.api('DELETE', `/api/knowledge-bases/${kb}`))
  expect([base.response.status, base.answered > 0, base.lagMs < LAG_BOUND_MS]).toEqual([200, true, true])
}, 240_000)

test('more passages than KNOWLEDGE_MAX_DOCUMENT_PASSAGES, and 2 MiB of empty headings, are refused with 422 while /health is answered', async () => {
  const kb = (await t.api('POST', '/api/knowledge-bases', { body: { name: 'refused' } })).body.knowledgeBase.id
  const docs = `/api/knowledge-bases/${kb}/documents`
  const same = await whileAnswering('same', t.api('POST', docs, { body: { name: 'same.csv', content: `question,answer\n${'qq,aa\n'.repeat(349_508)}` } }))
  expect(same.response.status).toBe(422)
  expect(same.response.body.error.message).toContain(`the document makes 349508 passages; at most ${MAX_PASSAGES} are accepted (KNOWLEDGE_MAX_DOCUMENT_PASSAGES)`)
  expect(same.lagMs).toBeLessThan(LAG_BOUND_MS)
  const headings = await whileAnswering('headings', t.api('POST', docs, { body: { name: 'h.md', content: '# h\n'.repeat(524_288) } }))
  expect(headings.response.status).toBe(422)
  expect(headings.response.body.error.details.fields).toEqual([{ path: 'content', message: 'holds no text to search' }])
  expect(headings.lagMs).toBeLessThan(LAG_BOUND_MS)
  expect((await t.api('GET', docs)).body.documents).toEqual([])
}, 120_000)
