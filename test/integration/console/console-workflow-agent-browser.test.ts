// A workflow agent's page in Debian's Chromium: the form says the workflow runs its calls and
// greets first (its start node's words, a link to it), and keeps the prompt, welcome, LLM model
// and tools apart as not used, with no "test the draft prompt" for its browser calls; a
// template's {{business}} is asked for when the agent is created, and a prompt variable no
// inbound call fills is pointed out. An agent without a workflow keeps those fields in view.
// Screenshots for docs/console.md.
import { afterAll, beforeAll, describe, expect } from 'bun:test'
import { startTestAppliance, type TestAppliance } from '../../helpers/appliance.ts'
import { type ConsoleBrowser, externalRequests, hasChromium, openBrowser, screenshot, seriousViolations, signIn } from '../../helpers/browser.ts'
import { testNeedingPackage } from '../../helpers/debian.ts'

const test = testNeedingPackage('chromium', hasChromium)

let t: TestAppliance
let b: ConsoleBrowser

beforeAll(async () => {
  if (!hasChromium) return
  t = await startTestAppliance({ LLM_PROVIDER: 'none' })
  b = await openBrowser()
  await signIn(b.page, t.url, t.adminKey)
}, 60_000)
afterAll(async () => {
  await b?.close()
  await t?.stop()
})

async function checkPage(name: string) {
  expect(await seriousViolations(b.page)).toEqual([])
  await screenshot(b.page, name)
}

/** Creates an agent in the console's form; resolves on its page with its id. */
async function create(name: string, template: string, business?: string): Promise<string> {
  const { page } = b
  await page.goto(`${t.url}/console#/agents`)
  const form = page.getByRole('form', { name: 'Create an agent' })
  await form.getByLabel('Name').fill(name)
  await form.getByLabel('Template').selectOption(template)
  if (business !== undefined) await form.getByLabel(/^Business/).fill(business)
  await form.getByRole('button', { name: 'Create agent' }).click()
  await page.getByRole('heading', { name: `Agent: ${name}` }).waitFor()
  return decodeURIComponent(new URL(page.url()).hash).split('/')[2]!
}

describe('a workflow agent\'s form shows what applies to its calls', () => {
  test('created from the receptionist template with a business name: the workflow greets first with its start node and is linked; prompt, welcome, model and tools are set apart as not used; the prompt names the business', async () => {
    const { page } = b
    const id = await create('Desk', 'receptionist', 'Acme Dental')
    // the greeting shows once the workflow has loaded
    const runs = page.getByRole('region', { name: 'How calls run' }).filter({ hasText: 'It greets first' })
    await runs.waitFor()
    const start = (await t.api('GET', `/api/agents/${id}/workflow`)).body.workflow.nodes.find((n: any) => n.type === 'start').config.text
    expect(await runs.textContent()).toContain(`It greets first, with its start node: ${start}`)
    expect(await runs.getByRole('link', { name: 'Open the workflow' }).getAttribute('href')).toBe(`#/agents/${id}/workflow`)
    const form = page.getByRole('form', { name: 'Edit the agent' })
    // the fields built from GET /api/providers are there
    await form.getByLabel('Voice provider').waitFor()
    // closed, under a summary that says they are not used
    for (const label of ['Prompt (draft)', 'Welcome mode', 'Welcome message', 'LLM model']) {
      const field = form.getByLabel(label, { exact: true })
      expect([label, await field.count(), await field.isVisible()]).toEqual([label, 1, false])
    }
    const tool = form.locator('input[name="tool-end_call"]')
    expect([await tool.count(), await tool.isVisible()]).toEqual([1, false])
    // what does apply stays in view
    for (const label of ['Voice provider', 'Language']) expect([label, await form.getByLabel(label, { exact: true }).isVisible()]).toEqual([label, true])
    // its calls never read the draft prompt: no "test the draft prompt" here (the workflow editor tests an unsaved graph)
    expect(await page.getByRole('checkbox', { name: /^Test the draft/ }).count()).toBe(0)
    await checkPage('agent-workflow')

    await form.getByText('Not used while the workflow runs calls').click()
    expect(await form.getByLabel('Prompt (draft)').inputValue()).toBe('You are the friendly receptionist of Acme Dental. Answer in one or two short sentences.')
    expect(await form.getByRole('note').count()).toBe(0)
    expect((await t.api('GET', `/api/agents/${id}`)).body.agent.promptPublished).toContain('Acme Dental')
  }, 30_000)

  test('created from a template without a business name: the prompt keeps {{business}} and the form says no inbound call fills it; an outbound agent is told its contacts fill it', async () => {
    const { page } = b
    const id = await create('Bookings', 'booking')
    const form = page.getByRole('form', { name: 'Edit the agent' })
    await form.getByText('Not used while the workflow runs calls').click()
    expect(await form.getByLabel('Prompt (draft)').inputValue()).toContain('{{business}}')
    const note = form.getByRole('note')
    await note.waitFor()
    expect(await note.textContent()).toContain('{{business}}: an inbound call fills only caller_number')
    // typing the name in removes the warning before anything is saved
    await form.getByLabel('Prompt (draft)').fill('You book appointments for Acme Dental.')
    await note.waitFor({ state: 'detached' })
    expect((await t.api('GET', `/api/agents/${id}`)).body.agent.promptDraft).toContain('{{business}}')

    await create('Sales', 'sales')
    await page.getByRole('form', { name: 'Edit the agent' }).getByText('Not used while the workflow runs calls').click()
    await page.getByText("{{business}}, {{offer}}: filled on each call from its dynamic variables (a campaign contact's column of that name)").waitFor()
  }, 30_000)

  test("from a workflow agent's page to another agent's, the page never takes the first agent's workflow for the second's (no request for a workflow the second has not)", async () => {
    const { page } = b
    const desk = (await t.api('POST', '/api/agents', { body: { name: 'Desk two', template: 'receptionist' } })).body.agent.id
    const plain = (await t.api('POST', '/api/agents', { body: { name: 'Plain two' } })).body.agent.id
    await page.goto(`${t.url}/console#/agents/${desk}`)
    await page.getByRole('region', { name: 'How calls run' }).waitFor()
    // the second agent's answer is held, so the page shows its new id with the first agent's data meanwhile
    let release!: () => void
    const held = new Promise<void>((resolve) => (release = resolve))
    await page.route(`**/api/agents/${plain}`, async (route) => {
      await held
      await route.continue()
    })
    const asked: string[] = []
    const onRequest = (r: { url(): string }) => asked.push(new URL(r.url()).pathname)
    page.on('request', onRequest)
    const requested = page.waitForRequest((r) => new URL(r.url()).pathname === `/api/agents/${plain}`)
    await page.evaluate((id) => ((globalThis as any).location.hash = `#/agents/${id}`), plain)
    await requested
    release()
    await page.getByRole('heading', { name: 'Agent: Plain two' }).waitFor()
    await page.getByRole('form', { name: 'Edit the agent' }).getByLabel('Prompt (draft)').waitFor()
    page.off('request', onRequest)
    await page.unroute(`**/api/agents/${plain}`)
    expect(asked.filter((p) => p === `/api/agents/${plain}/workflow`)).toEqual([])
  }, 30_000)

  test('an agent without a workflow shows its prompt, welcome and model in the form, and no workflow notice', async () => {
    const { page } = b
    await create('Plain', '')
    const form = page.getByRole('form', { name: 'Edit the agent' })
    await form.getByLabel('Voice provider').waitFor()
    for (const label of ['Prompt (draft)', 'Welcome mode', 'LLM model']) expect([label, await form.getByLabel(label, { exact: true }).isVisible()]).toEqual([label, true])
    expect(await page.getByRole('region', { name: 'How calls run' }).count()).toBe(0)
    expect(await page.getByRole('checkbox', { name: /^Test the draft/ }).count()).toBe(1)
    expect(await form.getByText('Not used while the workflow runs calls').count()).toBe(0)
    expect(externalRequests(b.requests)).toEqual([])
    expect(b.problems).toEqual([])
  }, 30_000)
})
