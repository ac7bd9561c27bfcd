// Knowledge bases in the console (issue 29), in Debian's Chromium: create a base, upload a
// Markdown file read in the browser, see its passages counted, ask a caller's question and see the
// passage an answer node would speak, re-index, and link the base on an agent's page.
import { afterAll, beforeAll, describe, expect } from 'bun:test'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { startTestAppliance, type TestAppliance } from '../../helpers/appliance.ts'
import { type ConsoleBrowser, externalRequests, hasChromium, openBrowser, screenshot, seriousViolations, signIn } from '../../helpers/browser.ts'
import { testNeedingPackage } from '../../helpers/debian.ts'
import { untilAsync } from '../../helpers/until.ts'

const test = testNeedingPackage('chromium', hasChromium)

let t: TestAppliance
let b: ConsoleBrowser
let dir = ''
const notFound: string[] = []

const HOURS = `# Clinic hours

## Weekdays

We are open Monday to Friday from 8 am to 6 pm.

## Saturday

On Saturday the clinic opens at 9 am and closes at 1 pm.

## Parking

Parking is free behind the building.
`

beforeAll(async () => {
  if (!hasChromium) return
  t = await startTestAppliance({ LLM_PROVIDER: 'none' })
  b = await openBrowser()
  b.page.on('response', (r) => {
    if (r.status() === 404) notFound.push(r.url())
  })
  dir = mkdtempSync(join(tmpdir(), 'console-knowledge-'))
}, 60_000)
afterAll(async () => {
  await b?.close()
  await t?.stop()
  if (dir) rmSync(dir, { recursive: true, force: true })
})

describe('knowledge bases in the console', () => {
  let baseId = ''

  test('create a base, upload a Markdown file, search a caller\'s question and re-index', async () => {
    const { page } = b
    await signIn(page, t.url, t.adminKey)
    await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Knowledge' }).click()
    await page.getByRole('heading', { name: 'Knowledge', level: 1 }).waitFor()
    await page.getByText('No knowledge base yet').waitFor()
    const create = page.getByRole('form', { name: 'Create a knowledge base' })
    await create.getByLabel('Name').fill('Clinic FAQ')
    await create.getByLabel('Description (optional)').fill('Opening hours and parking')
    await create.getByRole('button', { name: 'Create knowledge base' }).click()
    await page.getByRole('heading', { name: 'Knowledge base: Clinic FAQ' }).waitFor()
    baseId = decodeURIComponent(new URL(page.url()).hash.replace('#/knowledge/', ''))
    expect((await t.api('GET', `/api/knowledge-bases/${baseId}`)).body.knowledgeBase).toMatchObject({ name: 'Clinic FAQ', description: 'Opening hours and parking' })

    // the file is read in the browser and sent as contentBase64
    const file = join(dir, 'hours.md')
    writeFileSync(file, HOURS)
    const upload = page.getByRole('form', { name: 'Upload a document' })
    await upload.getByLabel(/^File/).setInputFiles(file)
    await upload.getByRole('button', { name: 'Upload' }).click()
    await upload.getByRole('status').getByText(/Added hours\.md: \d+ passages/).waitFor()
    const docs = (await t.api('GET', `/api/knowledge-bases/${baseId}/documents`)).body.documents
    expect(docs.map((d: any) => [d.name, d.format])).toEqual([['hours.md', 'markdown']])
    const row = page.getByRole('table', { name: 'Documents' }).getByRole('row').filter({ hasText: 'hours.md' })
    await row.waitFor()
    const cells = await row.getByRole('cell').allTextContents()
    expect(cells.slice(0, 3)).toEqual(['hours.md', 'markdown', String(docs[0].passages)])
    expect(docs[0].passages).toBeGreaterThanOrEqual(3)

    // a caller's question: the Saturday passage comes first and would be answered
    const search = page.getByRole('search', { name: 'Search the knowledge base' })
    await search.getByLabel("A caller's question").fill('what time do you close on saturday')
    await search.getByRole('button', { name: 'Search' }).click()
    const first = search.locator('ol.results > li').first()
    await first.waitFor()
    const text = await first.textContent()
    expect(await first.locator('.source').textContent()).toBe('hours.md > Saturday')
    expect(text).toContain('closes at 1 pm')
    expect(text).toContain('would be answered')
    const score = Number(await first.locator('.score').textContent())
    expect(score).toBeGreaterThanOrEqual(0.7)
    expect(await first.locator('.score').textContent()).toMatch(/^[01]\.\d\d$/)
    expect(await first.locator('q.spoken').textContent()).toContain('1 pm')
    expect(await seriousViolations(page)).toEqual([])
    await screenshot(page, 'knowledge-base')

    // re-indexing an unchanged base keeps every passage
    await page.getByRole('button', { name: 'Re-index' }).click()
    await page.getByRole('status').getByText(`Re-indexed 1 documents: 0 passages added, 0 removed, ${docs[0].passages} kept.`).waitFor()
  }, 40_000)

  test('an agent links the base: the checkbox saves knowledgeBaseIds and knowledgeAutoSearch, and links to the base\'s page', async () => {
    const agent = (await t.api('POST', '/api/agents', { body: { name: 'Clinic desk', template: 'receptionist' } })).body.agent
    expect(agent.knowledgeBaseIds).toEqual([])
    const { page } = b
    await page.goto(`${t.url}/console#/agents/${agent.id}`)
    const fieldset = page.getByRole('group', { name: 'Knowledge bases' })
    await fieldset.getByRole('checkbox', { name: 'Clinic FAQ' }).check()
    await fieldset.getByRole('checkbox', { name: /Search the linked bases on every caller turn/ }).check()
    await page.getByRole('button', { name: 'Save', exact: true }).click()
    await untilAsync(async () => (await t.api('GET', `/api/agents/${agent.id}`)).body.agent.knowledgeBaseIds.length === 1, 10_000, 'the base linked', 100)
    expect((await t.api('GET', `/api/agents/${agent.id}`)).body.agent).toMatchObject({ knowledgeBaseIds: [baseId], knowledgeAutoSearch: true })
    await page.reload()
    await fieldset.getByRole('checkbox', { name: 'Clinic FAQ' }).waitFor()
    expect(await fieldset.getByRole('checkbox', { name: 'Clinic FAQ' }).isChecked()).toBe(true)
    expect(await seriousViolations(page)).toEqual([])
    await fieldset.getByRole('link', { name: 'Open Clinic FAQ' }).click()
    await page.getByRole('heading', { name: 'Knowledge base: Clinic FAQ' }).waitFor()
  }, 30_000)

  test('workflow: an answer node is added with its minScore and maxChars, and a no_match edge', async () => {
    const agent = (await t.api('POST', '/api/agents', { body: { name: 'Answers', template: 'booking' } })).body.agent
    const { page } = b
    await page.goto(`${t.url}/console#/agents/${agent.id}/workflow`)
    const add = page.getByRole('form', { name: 'Add a node' })
    await add.getByLabel('New node id').fill('prices')
    await add.getByLabel('New node type').selectOption('answer')
    await add.getByRole('button', { name: 'Add node' }).click()
    const node = page.getByRole('form', { name: 'Node prices' })
    await node.getByLabel('Minimum confidence to answer (0-1, default 0.7)').fill('0.6')
    await node.getByLabel('Most characters spoken (40-1000, default 300)').fill('200')
    expect(JSON.parse(await node.getByLabel('Node config (JSON)').inputValue())).toEqual({ minScore: 0.6, maxChars: 200 })
    await node.getByRole('button', { name: 'Apply to draft' }).click()
    const graph = () => page.getByLabel('Graph (nodes, edges, settings)').inputValue().then(JSON.parse)
    expect((await graph()).nodes.find((n: any) => n.id === 'prices')).toEqual({ id: 'prices', type: 'answer', config: { minScore: 0.6, maxChars: 200 } })
    await node.getByLabel('New edge to').selectOption('start')
    await node.getByRole('checkbox', { name: 'no answer (no_match)' }).check()
    await node.getByRole('button', { name: 'Add edge' }).click()
    expect((await graph()).edges).toContainEqual({ from: 'prices', to: 'start', condition: { type: 'no_match' } })
    await page.locator('svg.graph g.edge text', { hasText: 'no answer' }).waitFor()
  }, 30_000)

  test('offline: no request left 127.0.0.1, none got 404, and no CSP refusal or script error happened', () => {
    expect(externalRequests(b.requests)).toEqual([])
    expect(notFound).toEqual([])
    expect(b.problems).toEqual([])
  })
})
