// The console in Debian's Chromium (headless, playwright-core) against a started appliance and a
// real SIPp caller: sign-in, agents, numbers, calls and workflows used as an operator would, each
// page checked by axe-core and photographed for docs/console.md. The page may talk to 127.0.0.1
// only. Campaigns and settings: console-admin-browser.test.ts.
import { afterAll, beforeAll, describe, expect } from 'bun:test'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { type FakeTwilio, startFakeTwilio } from '../../fakes/twilio.ts'
import { startTestAppliance, type TestAppliance } from '../../helpers/appliance.ts'
import { type ConsoleBrowser, externalRequests, hasChromium, openBrowser, screenshot, seriousViolations, signIn } from '../../helpers/browser.ts'
import { waitForCall } from '../../helpers/calls.ts'
import { testNeedingPackage } from '../../helpers/debian.ts'
import { SIPP_PCAP_DIR } from '../../helpers/pcap.ts'
import { freePort, scenarioFrom, sipp } from '../../helpers/sipp.ts'
import { untilAsync } from '../../helpers/until.ts'

const FIXTURES = join(import.meta.dir, '../../fixtures/sip')
const test = testNeedingPackage('chromium', hasChromium)

let t: TestAppliance
let b: ConsoleBrowser
let twilio: FakeTwilio
let agentId = ''
let callId = ''

beforeAll(async () => {
  if (!hasChromium) return
  twilio = startFakeTwilio()
  t = await startTestAppliance({ CARRIER_API_BASE: twilio.url, CARRIER_ACCOUNT_SID: twilio.accountSid, CARRIER_AUTH_TOKEN: twilio.authToken })
  b = await openBrowser()
}, 60_000)
afterAll(async () => {
  await b?.close()
  await t?.stop()
  await twilio?.stop()
})

/** No serious or critical axe violation on the page as shown, then a screenshot for the docs. */
async function checkPage(name: string) {
  expect(await seriousViolations(b.page)).toEqual([])
  await screenshot(b.page, name)
}

describe('the web console in a browser', () => {
  test('sign-in: a wrong key is refused next to the field; the right key is kept in session storage only, never in the URL or a cookie', async () => {
    const { page } = b
    await page.goto(`${t.url}/console`)
    await page.getByLabel('API key').fill('vak_wrong')
    await page.getByRole('button', { name: 'Sign in' }).click()
    await expect(page.locator('.field-error').textContent()).resolves.toBeTruthy()
    expect(await page.getByLabel('API key').getAttribute('aria-invalid')).toBe('true')
    await checkPage('sign-in')
    await signIn(page, t.url, t.adminKey)
    await page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor()
    expect(await page.evaluate(() => sessionStorage.getItem('voice-agent-api-key'))).toBe(t.adminKey)
    expect(await page.context().cookies()).toEqual([])
    expect(b.requests.some((u) => u.includes(t.adminKey))).toBe(false)
    await checkPage('overview')
  }, 20_000)

  test('agents: an empty name is refused next to the Name field; an agent from the "receptionist" template shows it can converse; its voice previews; bad voice input is refused at the field; the draft prompt is published with its diff', async () => {
    const { page } = b
    await page.goto(`${t.url}/console#/agents`)
    await page.getByText('No agent yet').waitFor()
    await page.getByRole('button', { name: 'Create agent' }).click()
    const nameField = page.getByRole('form', { name: 'Create an agent' }).getByLabel('Name')
    await page.getByRole('form', { name: 'Create an agent' }).locator('.field-error').waitFor()
    expect(await nameField.getAttribute('aria-invalid')).toBe('true')
    await nameField.fill('Front desk')
    await page.getByRole('button', { name: 'Create agent' }).click()
    await page.getByRole('heading', { name: 'Agent: Front desk' }).waitFor()
    await page.getByText('Ready to converse').waitFor()
    expect(await page.getByRole('region', { name: 'Readiness' }).textContent()).toContain('brain: workflow')
    agentId = decodeURIComponent(new URL(page.url()).hash).split('/')[2]!
    expect(agentId).toStartWith('ag_')
    await page.getByRole('button', { name: 'Preview voice' }).click()
    await page.waitForFunction(() => ((globalThis as any).document.querySelector('audio[aria-label="Voice preview"]')?.duration ?? 0) > 0.5)
    await page.getByText('Advanced: raw JSON').click()
    await page.getByLabel('Voice (JSON)').fill('{"provider": ')
    await page.getByRole('button', { name: 'Save' }).click()
    await page.getByText('not valid JSON', { exact: true }).waitFor()
    await page.getByLabel('Voice (JSON)').fill('{"provider": 42}')
    await page.getByRole('button', { name: 'Save' }).click()
    await page.locator('[name="voice"][aria-invalid="true"]').waitFor()
    // a workflow agent's prompt is set apart as not used by its calls
    await page.getByText('Not used while the workflow runs calls').click()
    await page.getByLabel('Prompt (draft)').fill('You are the front desk of Acme.')
    await page.getByLabel('Voice (JSON)').fill(JSON.stringify((await t.api('GET', `/api/agents/${agentId}`)).body.agent.voice))
    await page.getByRole('button', { name: 'Save' }).click()
    await page.getByText('+ You are the front desk of Acme.').first().waitFor()
    await page.getByRole('button', { name: 'Publish draft' }).click()
    await page.getByRole('alertdialog', { name: 'Publish the draft' }).getByRole('button', { name: 'Publish now' }).click()
    await page.getByText('Draft vs published (0 changed lines)').waitFor()
    expect((await t.api('GET', `/api/agents/${agentId}`)).body.agent.promptPublished).toBe('You are the front desk of Acme.')
    await checkPage('agent')
    await page.goto(`${t.url}/console#/agents`)
    await page.getByRole('link', { name: 'Front desk' }).waitFor()
    await checkPage('agents')
  }, 20_000)

  test('numbers: after a payment method is added in Settings, a SIP trunk number is connected and its inbound agent assigned', async () => {
    const { page } = b
    await page.goto(`${t.url}/console#/settings`)
    await page.getByLabel('Manual reference').fill('console test account')
    await page.getByRole('form', { name: 'Add a manual payment method' }).getByRole('button', { name: 'Add' }).click()
    await page.getByRole('cell', { name: 'console test account' }).waitFor()

    await page.goto(`${t.url}/console#/numbers`)
    await page.getByLabel('Number (E.164)').fill('+1415')
    await page.getByLabel('Trunk URI').fill('sip:127.0.0.1:5999')
    await page.getByRole('button', { name: 'Connect number' }).click()
    await page.getByRole('form', { name: 'Connect a SIP trunk number' }).locator('.field-error').first().waitFor()
    expect(await page.getByLabel('Number (E.164)').getAttribute('aria-invalid')).toBe('true')
    await page.getByLabel('Number (E.164)').fill('+14155550100')
    await page.getByRole('button', { name: 'Connect number' }).click()
    const select = page.getByLabel('Inbound agent of +14155550100')
    await select.waitFor()
    await select.selectOption({ label: 'Front desk' })
    await untilAsync(async () => (await t.api('GET', '/api/phone-numbers')).body.phoneNumbers?.[0]?.inboundAgentId === agentId, 10_000, 'the inbound agent assigned', 100)

    // the carrier (a local fake speaking Twilio's API) is asked by the appliance, never by the page
    await page.getByLabel('Area code').fill('415')
    await page.getByRole('button', { name: 'Search' }).click()
    page.once('dialog', (d) => d.accept())
    await page.getByRole('button', { name: 'Buy +14155550124' }).click()
    await page.getByLabel('Inbound agent of +14155550124').waitFor()
    expect(twilio.requests.some((r) => r.path.endsWith('/IncomingPhoneNumbers.json'))).toBe(true)
    await checkPage('numbers')
  }, 20_000)

  test('calls: a SIPp call shows on the overview while it is up, then in the calls list as completed', async () => {
    const { page } = b
    await page.goto(`${t.url}/console#/`)
    await page.getByText('No call matches.').waitFor()
    const scenario = scenarioFrom(join(FIXTURES, 'uac-dtmf-listen.xml'), { PCAP: join(SIPP_PCAP_DIR, 'dtmf_2833_1.pcap'), BEFORE: '2500', AFTER: '5000' })
    const caller = sipp(['-sf', scenario, `127.0.0.1:${t.appliance.sip.udp}`, '-s', '14155550100', '-m', '1', '-i', '127.0.0.1', '-p', String(await freePort()), '-mp', String(await freePort())], 40)
    const live = page.getByRole('table', { name: 'Calls in progress' }).getByText('in_progress')
    await live.waitFor({ timeout: 15_000 })
    await screenshot(page, 'overview-live-call')
    const run = await caller.exited
    expect(run.code, run.stderr).toBe(0)
    const call = await waitForCall(t, (c) => c.status === 'ended')
    callId = call.id
    await page.goto(`${t.url}/console#/calls`)
    await page.getByRole('table', { name: 'Calls' }).getByText('completed').waitFor({ timeout: 10_000 })
    expect(await page.getByRole('link', { name: /inbound sipp → \+14155550100/ }).count()).toBe(1)
    await checkPage('calls')
  }, 45_000)

  test('call page: the recording plays past one second, a transcript line seeks it, the latency chart is drawn; a label and a manual evaluation are added', async () => {
    const { page } = b
    await page.goto(`${t.url}/console#/calls/${callId}`)
    const audio = page.getByLabel('Call recording')
    await audio.waitFor()
    await page.locator('.wave[data-state="ready"]').waitFor({ timeout: 15_000 })
    // the recording is fetched by its signed link, not with the API key
    expect(b.requests.some((u) => u.includes(`/recordings/${callId}?`) && u.includes('signature='))).toBe(true)
    expect(b.requests.some((u) => u.includes(`/api/calls/${callId}/recording`))).toBe(false)
    await page.getByRole('button', { name: /\[DTMF\] 1/ }).click()
    await page.waitForFunction(() => (globalThis as any).document.querySelector('audio').currentTime >= 2.5)
    await audio.evaluate((a: any) => {
      a.currentTime = 0
      return a.play()
    })
    await page.waitForFunction(() => (globalThis as any).document.querySelector('audio').currentTime > 1, undefined, { timeout: 15_000 })
    await audio.evaluate((a: any) => a.pause())
    expect(await page.locator('.transcript li').count()).toBeGreaterThanOrEqual(2)
    await page.locator('.chart canvas').first().waitFor()
    // the media facts of the record: codec, where the caller's RTP came from, what crossed the wire
    const media = page.getByRole('region', { name: 'Media' })
    await media.getByText('PCMU/8000').waitFor()
    expect(await media.getByText(/^127\.0\.0\.1:\d+$/).count()).toBe(1)
    expect(await media.getByText(/^[1-9]\d* packets, [1-9]\d* bytes$/).count()).toBe(2)

    await page.getByLabel('New label').fill('needs-review')
    await page.getByRole('button', { name: 'Add label' }).click()
    await page.getByRole('region', { name: 'Labels' }).getByText('needs-review').waitFor()
    await page.getByLabel('Score (0-100)').fill('150')
    await page.getByRole('button', { name: 'Add evaluation' }).click()
    // the API's 422 names the field; the console shows it under that field
    await page.getByRole('form', { name: 'Add a manual evaluation' }).locator('.field-error').waitFor()
    expect(await page.getByLabel('Score (0-100)').getAttribute('aria-invalid')).toBe('true')
    await page.getByLabel('Score (0-100)').fill('80')
    await page.getByLabel('Evaluator').fill('Dana')
    await page.getByRole('button', { name: 'Add evaluation' }).click()
    await page.getByText('80/100').waitFor()
    const doc = (await t.api('GET', `/api/calls/${callId}/export`)).body
    expect(doc.labels).toEqual(['needs-review'])
    expect(doc.evaluations.map((e: any) => [e.type, e.score, e.evaluatorName])).toEqual([['manual', 80, 'Dana']])
    await checkPage('call')
  }, 40_000)

  test('workflow: the template graph is drawn; a test-run pressing 1 lights the path; a node edited in the draft is test-run then saved; a node nothing reaches is marked with the API issue', async () => {
    const { page } = b
    await page.goto(`${t.url}/console#/agents/${agentId}/workflow`)
    await page.locator('svg.graph g.node').first().waitFor()
    const graph = (await t.api('GET', `/api/agents/${agentId}/workflow`)).body.workflow
    expect(await page.locator('svg.graph g.node').count()).toBe(graph.nodes.length)
    await page.getByLabel(/Caller turns/).fill('dtmf:1')
    await page.getByRole('button', { name: 'Run' }).click()
    const path = page.locator('.result .path')
    await path.waitFor()
    const expected = (await t.api('POST', `/api/agents/${agentId}/workflow/test-run`, { body: { inputs: [{ role: 'user', content: 'dtmf:1' }] } })).body.path as string[]
    expect(await path.textContent()).toBe(expected.join(' → '))
    const lit = await page.locator('svg.graph g.node[data-lit="true"]').evaluateAll((gs) => gs.map((g) => g.getAttribute('data-node')))
    expect(lit.sort()).toEqual([...new Set(expected)].sort())
    await checkPage('workflow')

    // edit a node in the draft: the test-run uses the draft, saving stores it
    const start = graph.nodes.find((n: any) => n.type === 'start')
    await page.getByRole('button', { name: new RegExp(`^${start.id}\\s*start$`) }).click()
    await page.getByLabel('Node config (JSON)').fill(JSON.stringify({ ...start.config, text: 'Welcome to Acme.' }))
    await page.getByRole('button', { name: 'Apply to draft' }).click()
    await page.getByRole('button', { name: 'Run' }).click()
    await page.locator('.result li', { hasText: 'Welcome to Acme.' }).waitFor()
    expect((await t.api('GET', `/api/agents/${agentId}/workflow`)).body.workflow.nodes.find((n: any) => n.id === start.id).config.text).not.toBe('Welcome to Acme.')
    await page.getByRole('button', { name: 'Save workflow' }).click()
    await page.getByRole('button', { name: 'Discard the draft' }).waitFor({ state: 'detached' })
    expect((await t.api('GET', `/api/agents/${agentId}/workflow`)).body.workflow.nodes.find((n: any) => n.id === start.id).config.text).toBe('Welcome to Acme.')
    // the page now shows the saved graph, not the one it loaded
    expect(await page.getByLabel('Graph (nodes, edges, settings)').inputValue()).toContain('Welcome to Acme.')

    // a node nothing leads to: the API's issues are listed and mark that node; nothing is saved
    await page.getByLabel('New node id').fill('lonely')
    await page.getByRole('button', { name: 'Add node' }).click()
    await page.getByLabel('Node config (JSON)').fill('{"text": "Hi"}')
    await page.getByRole('button', { name: 'Apply to draft' }).click()
    await page.getByRole('button', { name: 'Save workflow' }).click()
    await page.locator('svg.graph g.node.invalid[data-node="lonely"]').waitFor()
    expect(await page.locator('.problems').textContent()).toContain('lonely')
    expect(await page.getByRole('form', { name: 'Node lonely' }).locator('.field-error').count()).toBeGreaterThan(0)
    expect(await seriousViolations(page)).toEqual([])
    await screenshot(page, 'workflow-invalid')
    expect((await t.api('GET', `/api/agents/${agentId}/workflow`)).body.workflow.nodes.length).toBe(graph.nodes.length)
  }, 20_000)

  test('phone width: the calls and call pages fit 390 px without sideways scrolling and pass axe; the menu is reached by keyboard', async () => {
    const context = await b.browser.newContext({ viewport: { width: 390, height: 844 } })
    await context.addInitScript(`sessionStorage.setItem('voice-agent-api-key', ${JSON.stringify(t.adminKey)})`)
    const phone = await context.newPage()
    phone.on('request', (r) => b.requests.push(r.url()))
    for (const [hash, name] of [['#/calls', 'calls'], [`#/calls/${callId}`, 'call']] as const) {
      await phone.goto(`${t.url}/console${hash}`)
      await phone.getByRole('heading', { level: 1 }).waitFor()
      await phone.locator('table, .wave[data-state="ready"]').first().waitFor()
      expect(await phone.evaluate('document.documentElement.scrollWidth <= window.innerWidth')).toBe(true)
      expect(await seriousViolations(phone)).toEqual([])
      await screenshot(phone, `phone-${name}`)
    }
    await phone.keyboard.press('Tab')
    expect(await phone.evaluate('document.activeElement.textContent')).toBe('Skip to content')
    await phone.keyboard.press('Tab')
    expect(await phone.evaluate('document.activeElement.textContent')).toBe('Overview')
    await context.close()
  }, 30_000)

  test('call page: Export JSON downloads the export document; Delete, once confirmed, removes the call', async () => {
    const { page } = b
    await page.goto(`${t.url}/console#/calls/${callId}`)
    const downloading = page.waitForEvent('download')
    await page.getByRole('button', { name: 'Export JSON' }).click()
    const download = await downloading
    expect(download.suggestedFilename()).toBe(`${callId}.json`)
    const doc = JSON.parse(readFileSync((await download.path())!, 'utf8'))
    expect(doc.call.id).toBe(callId)
    expect(doc.labels).toEqual(['needs-review'])
    await page.getByRole('button', { name: 'Delete call' }).click()
    await page.getByRole('alertdialog', { name: 'Delete this call' }).getByRole('button', { name: 'Delete the call' }).click()
    await page.getByRole('heading', { name: 'Calls', level: 1 }).waitFor()
    expect((await t.api('GET', `/api/calls/${callId}`)).status).toBe(404)
  }, 20_000)

  test('offline: no request of the whole session left 127.0.0.1, and no CSP refusal or script error happened', () => {
    expect(b.requests.length).toBeGreaterThan(20)
    expect(externalRequests(b.requests)).toEqual([])
    expect(b.problems).toEqual([])
  })
})
