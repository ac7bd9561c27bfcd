// The console in Debian's Chromium for what an operator edits and reads in the first week: the
// overview's chart of one call, the workflow's edge labels, the voice/model/tools forms built
// from GET /api/providers, a publish that would empty the live prompt, number editing and
// release, and a delete dialog that says what happens to the recording. Screenshots for
// docs/console.md. The page never gets a 404 (favicon) and never leaves 127.0.0.1.
import { afterAll, beforeAll, describe, expect } from 'bun:test'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { startTestAppliance, type TestAppliance } from '../../helpers/appliance.ts'
import { type ConsoleBrowser, externalRequests, hasChromium, openBrowser, screenshot, seriousViolations, signIn } from '../../helpers/browser.ts'
import { seedCall } from '../../helpers/call-records.ts'
import { testNeedingPackage } from '../../helpers/debian.ts'
import { untilAsync } from '../../helpers/until.ts'

const test = testNeedingPackage('chromium', hasChromium)

let t: TestAppliance
let b: ConsoleBrowser
const notFound: string[] = []

beforeAll(async () => {
  if (!hasChromium) return
  t = await startTestAppliance({ LLM_PROVIDER: 'none' })
  b = await openBrowser()
  b.page.on('response', (r) => {
    if (r.status() === 404) notFound.push(r.url())
  })
}, 60_000)
afterAll(async () => {
  await b?.close()
  await t?.stop()
})

async function checkPage(name: string) {
  expect(await seriousViolations(b.page)).toEqual([])
  await screenshot(b.page, name)
}

type Rect = { x: number; y: number; width: number; height: number }
const overlapping = (a: Rect, c: Rect) => a.x < c.x + c.width && c.x < a.x + a.width && a.y < c.y + c.height && c.y < a.y + a.height

describe('editing and reading in the console', () => {
  test('overview: one call today draws an axis of about an hour around it, not years; the page loads with no 404 (favicon)', async () => {
    await seedCall(t.appliance.database.db, { workspaceId: t.workspaceId })
    await signIn(b.page, t.url, t.adminKey)
    const chart = b.page.locator('figure.chart[data-x-max]')
    await chart.waitFor({ timeout: 15_000 })
    const [min, max] = [Number(await chart.getAttribute('data-x-min')), Number(await chart.getAttribute('data-x-max'))]
    const call = (await t.api('GET', '/api/calls')).body.calls[0]
    const at = Date.parse(call.endedAt) / 1000
    expect(min).toBeLessThan(at)
    expect(max).toBeGreaterThan(at)
    expect(max - min).toBeLessThanOrEqual(2 * 3600)
    expect(notFound).toEqual([])
    await checkPage('overview-chart')
  }, 30_000)

  test('workflow: the receptionist graph\'s edge labels ("hours / open / opening" and "key 1" between one pair) overlap neither each other nor a node', async () => {
    const agent = (await t.api('POST', '/api/agents', { body: { name: 'Desk', template: 'receptionist' } })).body.agent
    await b.page.goto(`${t.url}/console#/agents/${agent.id}/workflow`)
    await b.page.locator('svg.graph g.edge rect.label').first().waitFor()
    const boxes = await b.page.evaluate(() => {
      const doc = (globalThis as any).document
      const of = (sel: string) => [...doc.querySelectorAll(sel)].map((el: any) => el.getBoundingClientRect().toJSON())
      return { labels: of('svg.graph g.edge rect.label'), nodes: of('svg.graph g.node rect'), texts: [...doc.querySelectorAll('svg.graph g.edge text')].map((el: any) => el.textContent) }
    })
    expect(boxes.texts).toContain('hours / open / opening')
    expect(boxes.texts).toContain('key 1')
    for (let i = 0; i < boxes.labels.length; i++) {
      for (let j = i + 1; j < boxes.labels.length; j++) expect([boxes.texts[i], boxes.texts[j], overlapping(boxes.labels[i], boxes.labels[j])]).toEqual([boxes.texts[i], boxes.texts[j], false])
      for (const n of boxes.nodes) expect([boxes.texts[i], overlapping(boxes.labels[i], n)]).toEqual([boxes.texts[i], false])
    }
    await checkPage('workflow-labels')
  }, 20_000)

  test('agent: voice, model and tools are chosen in forms built from GET /api/providers; the raw JSON view shows the same values', async () => {
    const agent = (await t.api('POST', '/api/agents', { body: { name: 'Caller', template: 'sales' } })).body.agent
    const { page } = b
    await page.goto(`${t.url}/console#/agents/${agent.id}`)
    await page.getByLabel('Voice provider').waitFor()
    const providers = (await t.api('GET', '/api/providers')).body
    // a workflow agent (the template's): its model and tools are set apart as not used by its calls
    await page.getByText('Not used while the workflow runs calls').click()
    // every catalogue voice provider and tool is offered
    expect(await page.getByLabel('Voice provider').locator('option').count()).toBe(providers.voice.length)
    for (const tool of providers.tools) await page.getByRole('checkbox', { name: new RegExp(`^${tool.name}:`) }).waitFor()
    await page.getByLabel('Voice id').selectOption('kal16')
    await page.getByLabel('Speed').fill('1.2')
    await page.getByLabel('LLM model', { exact: true }).selectOption('workflow')
    await page.getByRole('checkbox', { name: /^end_call:/ }).check()
    await page.getByLabel('end_call farewellMessage (optional)').fill('Goodbye from Acme.')
    await page.getByRole('checkbox', { name: /^transfer_call:/ }).check()
    await page.getByLabel('transfer_call destinations (JSON)').fill('[{"number": "+14155550199"}]')
    await page.getByLabel('transfer_call destinations (JSON)').blur()
    await page.getByLabel('transfer_call mode').selectOption('warm')
    await page.getByRole('button', { name: 'Save', exact: true }).click()
    await untilAsync(async () => (await t.api('GET', `/api/agents/${agent.id}`)).body.agent.enabledTools.length === 2, 10_000, 'the tools saved', 100)
    const saved = (await t.api('GET', `/api/agents/${agent.id}`)).body.agent
    expect(saved.voice).toMatchObject({ provider: 'flite', voiceId: 'kal16', speed: 1.2 })
    expect(saved.llmModel).toBe('workflow')
    expect(saved.enabledTools).toEqual(['end_call', 'transfer_call'])
    expect(saved.toolConfigs.end_call).toEqual({ farewellMessage: 'Goodbye from Acme.' })
    expect(saved.toolConfigs.transfer_call).toMatchObject({ destinations: [{ number: '+14155550199' }], mode: 'warm' })
    await page.getByText('Advanced: raw JSON').click()
    expect(JSON.parse(await page.getByLabel('Voice (JSON)').inputValue())).toMatchObject({ voiceId: 'kal16' })
    expect(await page.getByLabel('Enabled tools (comma separated)').inputValue()).toBe('end_call, transfer_call')
    await checkPage('agent-forms')
  }, 30_000)

  test('agent: endpointing is chosen as a preset or as "custom ms", and the form saves what the API then returns', async () => {
    const agent = (await t.api('POST', '/api/agents', { body: { name: 'Pauser' } })).body.agent
    const { page } = b
    const open = async () => {
      await page.goto(`${t.url}/console#/agents/${agent.id}`)
      await page.reload() // the agent as stored, not the form's state
      const select = page.getByLabel("End of turn (silence that ends the caller's turn)")
      await page.getByLabel('API key').or(select).first().waitFor()
      if (await page.getByLabel('API key').count()) await signIn(page, t.url, t.adminKey).then(() => page.goto(`${t.url}/console#/agents/${agent.id}`))
      await select.waitFor()
      return select
    }
    const select = await open()
    expect(await select.inputValue()).toBe('normal')
    expect(await select.locator('option').allTextContents()).toEqual(['fast', 'normal (default)', 'patient', 'custom ms'])
    await select.selectOption('custom')
    await page.getByLabel('End of turn, ms (100-5000)').fill('1200')
    await page.getByRole('button', { name: 'Save', exact: true }).click()
    await untilAsync(async () => (await t.api('GET', `/api/agents/${agent.id}`)).body.agent.endpointing === 1200, 10_000, 'the custom endpointing saved', 100)
    expect(await seriousViolations(page)).toEqual([])
    // out of range: the browser holds the form back, and nothing changes
    await page.getByLabel('End of turn, ms (100-5000)').fill('9000')
    await page.getByRole('button', { name: 'Save', exact: true }).click()
    expect(await page.getByLabel('End of turn, ms (100-5000)').evaluate((el: any) => el.validity.rangeOverflow)).toBe(true)
    expect((await t.api('GET', `/api/agents/${agent.id}`)).body.agent.endpointing).toBe(1200)
    const reopened = await open()
    expect(await reopened.inputValue()).toBe('custom')
    expect(await page.getByLabel('End of turn, ms (100-5000)').inputValue()).toBe('1200')
    await reopened.selectOption('patient')
    await page.getByRole('button', { name: 'Save', exact: true }).click()
    await untilAsync(async () => (await t.api('GET', `/api/agents/${agent.id}`)).body.agent.endpointing === 'patient', 10_000, 'the preset saved', 100)
  }, 30_000)

  test("agent: the vocabulary is edited a word or phrase a line, a refused line is named, and the API keeps what was saved", async () => {
    const agent = (await t.api('POST', '/api/agents', { body: { name: 'Words', vocabulary: ['Zorblax'] } })).body.agent
    const { page } = b
    await page.goto(`${t.url}/console#/agents/${agent.id}`)
    await page.reload()
    const box = page.getByLabel(/^Vocabulary/)
    await page.getByLabel('API key').or(box).first().waitFor()
    if (await page.getByLabel('API key').count()) await signIn(page, t.url, t.adminKey).then(() => page.goto(`${t.url}/console#/agents/${agent.id}`))
    await box.waitFor()
    expect(await box.inputValue()).toBe('Zorblax')
    await box.fill('Zorblax\nQuentin Street\n')
    await page.getByRole('button', { name: 'Save', exact: true }).click()
    await untilAsync(async () => (await t.api('GET', `/api/agents/${agent.id}`)).body.agent.vocabulary.length === 2, 10_000, 'the vocabulary saved', 100)
    expect((await t.api('GET', `/api/agents/${agent.id}`)).body.agent.vocabulary).toEqual(['Zorblax', 'Quentin Street'])
    await page.getByLabel(/^Vocabulary/).fill('Zorblax\n<b>')
    await page.getByRole('button', { name: 'Save', exact: true }).click()
    await page.getByRole('alert').filter({ hasText: '"<b>" holds characters no one says' }).waitFor()
    expect((await t.api('GET', `/api/agents/${agent.id}`)).body.agent.vocabulary).toEqual(['Zorblax', 'Quentin Street'])
    expect(await seriousViolations(page)).toEqual([])
  }, 30_000)

  test('agent: with only promptPublished, Publish asks before replacing the live prompt with the empty draft and shows the diff; cancelling keeps the live prompt', async () => {
    const agent = (await t.api('POST', '/api/agents', { body: { name: 'Live only', promptPublished: 'You are the live prompt.' } })).body.agent
    expect(agent.promptDraft ?? '').toBe('')
    const { page } = b
    await page.goto(`${t.url}/console#/agents/${agent.id}`)
    await page.getByText('The draft is empty; calls use the live prompt.').waitFor()
    await page.getByRole('button', { name: 'Publish draft' }).click()
    const dialog = page.getByRole('alertdialog', { name: 'Publish the draft' })
    await dialog.getByText('The draft is empty.').waitFor()
    expect(await dialog.locator('.diff').textContent()).toContain('- You are the live prompt.')
    await checkPage('agent-publish-empty')
    await dialog.getByRole('button', { name: 'Cancel' }).click()
    await dialog.waitFor({ state: 'detached' })
    expect((await t.api('GET', `/api/agents/${agent.id}`)).body.agent.promptPublished).toBe('You are the live prompt.')
    // the draft can start from the live prompt instead
    await page.getByRole('button', { name: 'Start the draft from the live prompt' }).click()
    expect(await page.getByLabel('Prompt (draft)').inputValue()).toBe('You are the live prompt.')
  }, 20_000)

  test('numbers: label, trunk URI, transport and credentials are edited, the credentials removed, and the number released', async () => {
    expect((await t.api('POST', `/api/workspaces/${t.workspaceId}/payment-methods`, { body: { provider: 'manual', reference: 'acct' } })).status).toBe(200)
    const created = await t.api('POST', '/api/phone-numbers', {
      body: { e164: '+14155550100', sipTerminationUri: 'sip:127.0.0.1:5999', sipOutboundTransport: 'udp', sipUsername: 'trunkuser', sipPassword: 'old-secret' },
    })
    expect(created.status, JSON.stringify(created.body)).toBe(200)
    const id = created.body.phoneNumber.id
    const get = async () => (await t.api('GET', `/api/phone-numbers/${id}`)).body.phoneNumber
    const { page } = b
    await page.goto(`${t.url}/console#/numbers`)
    await page.getByRole('button', { name: 'Edit +14155550100' }).click()
    const form = page.getByRole('form', { name: 'Edit +14155550100' })
    await form.getByLabel('Label').fill('Main line')
    await form.getByLabel('Trunk URI').fill('sip:127.0.0.1:5998')
    await form.getByLabel('Transport').selectOption('tcp')
    await form.getByLabel('New SIP password (blank keeps the current one)').fill('new-secret')
    await checkPage('number-edit')
    await form.getByRole('button', { name: 'Save number' }).click()
    await form.waitFor({ state: 'detached' })
    expect(await get()).toMatchObject({ label: 'Main line', sipTerminationUri: 'sip:127.0.0.1:5998', sipOutboundTransport: 'tcp', sipUsername: 'trunkuser', hasSipPassword: true })
    await page.getByText('Main line').waitFor()

    // a bad URI is refused at its field
    await page.getByRole('button', { name: 'Edit +14155550100' }).click()
    await form.getByLabel('Trunk URI').fill('http://example.com')
    await form.getByRole('button', { name: 'Save number' }).click()
    await form.locator('[name="sipTerminationUri"][aria-invalid="true"]').waitFor()
    await form.getByLabel('Trunk URI').fill('sip:127.0.0.1:5998')
    await form.getByLabel('Remove the username and password').check()
    await form.getByRole('button', { name: 'Save number' }).click()
    await form.waitFor({ state: 'detached' })
    expect(await get()).toMatchObject({ sipUsername: null, hasSipPassword: false })

    await page.getByRole('button', { name: 'Edit +14155550100' }).click()
    await form.getByRole('button', { name: 'Release number' }).click()
    await page.getByRole('alertdialog', { name: 'Release the number' }).getByRole('button', { name: 'Release +14155550100' }).click()
    await form.waitFor({ state: 'detached' })
    await untilAsync(async () => (await t.api('GET', `/api/phone-numbers/${id}`)).status === 404 || (await get())?.status === 'released', 10_000, 'the number released', 100)
  }, 30_000)

  test('call delete: the dialog says the recording file stays unless "Delete the recording too" is ticked, and does what it says', async () => {
    const db = t.appliance.database.db
    const keep = await seedCall(db, { workspaceId: t.workspaceId, recordingIn: t.dataDir })
    const drop = await seedCall(db, { workspaceId: t.workspaceId, recordingIn: t.dataDir })
    const file = (id: string) => join(t.dataDir, 'recordings', `${id}.wav`)
    const { page } = b
    for (const [id, withRecording] of [[keep, false], [drop, true]] as const) {
      await page.goto(`${t.url}/console#/calls/${id}`)
      await page.locator('.wave[data-state="ready"]').waitFor({ timeout: 15_000 })
      await page.getByRole('button', { name: 'Delete call' }).click()
      const dialog = page.getByRole('alertdialog', { name: 'Delete this call' })
      expect(await dialog.textContent()).not.toContain('and recording')
      await dialog.getByText('The recording file stays on the appliance').waitFor()
      if (withRecording) {
        await dialog.getByLabel('Delete the recording too').check()
        await dialog.getByText('The recording file is deleted first, then the record.').waitFor()
        await checkPage('call-delete')
      }
      await dialog.getByRole('button', { name: withRecording ? 'Delete the call and its recording' : 'Delete the call' }).click()
      await page.getByRole('heading', { name: 'Calls', level: 1 }).waitFor()
      expect((await t.api('GET', `/api/calls/${id}`)).status).toBe(404)
      expect([id, existsSync(file(id))]).toEqual([id, !withRecording])
    }
  }, 40_000)

  test('offline: no request left 127.0.0.1, none got 404, and no CSP refusal or script error happened', () => {
    expect(externalRequests(b.requests)).toEqual([])
    expect(notFound).toEqual([])
    expect(b.problems).toEqual([])
  })
})
