// The console's campaign and settings pages in Debian's Chromium (headless, playwright-core)
// against a started appliance and SIPp callees; each page checked by axe-core and photographed for
// docs/console.md. The page may talk to 127.0.0.1 only.
import { afterAll, beforeAll, describe, expect } from 'bun:test'
import { memberKey, startTestAppliance, type TestAppliance } from '../../helpers/appliance.ts'
import { type ConsoleBrowser, externalRequests, hasChromium, openBrowser, screenshot, seriousViolations, signIn } from '../../helpers/browser.ts'
import { setupCallTarget } from '../../helpers/calls.ts'
import { startCallees } from '../../helpers/campaign-callees.ts'
import { testNeedingPackage } from '../../helpers/debian.ts'
import { untilAsync } from '../../helpers/until.ts'

const test = testNeedingPackage('chromium', hasChromium)

let t: TestAppliance
let b: ConsoleBrowser

beforeAll(async () => {
  if (!hasChromium) return
  t = await startTestAppliance()
  b = await openBrowser()
}, 60_000)
afterAll(async () => {
  await b?.close()
  await t?.stop()
})

/** No serious or critical axe violation on the page as shown, then a screenshot for the docs. */
async function checkPage(name: string) {
  expect(await seriousViolations(b.page)).toEqual([])
  await screenshot(b.page, name)
}

describe('the web console in a browser: campaigns and settings', () => {
  test('sign in', async () => {
    await signIn(b.page, t.url, t.adminKey)
  }, 20_000)

  test('campaigns: a CSV is uploaded, mapped and previewed; the campaign calls SIPp callees and its counters reach the end', async () => {
    const { page } = b
    const callees = await startCallees(3, 90)
    const target = await setupCallTarget(t, { trunkUri: `sip:127.0.0.1:${callees.port}`, direction: 'outbound', e164: '+14155550199' })
    const graph = { nodes: [{ id: 'start', type: 'start', config: { text: 'Hello {{first}}.' } }, { id: 'bye', type: 'end', config: { text: 'Bye.' } }], edges: [{ from: 'start', to: 'bye' }] }
    expect((await t.api('PUT', `/api/agents/${target.agentId}/workflow`, { body: graph })).status).toBe(200)

    await page.goto(`${t.url}/console#/campaigns`)
    await page.getByLabel('Name', { exact: true }).fill('Console campaign')
    await page.getByLabel('Agent').selectOption({ label: 'Reception' })
    await page.getByLabel('Caller ID number').selectOption({ label: '+14155550199' })
    await page.getByLabel('Calls at once').fill('3')
    await page.getByLabel(/Calling window start/).fill('00:00')
    await page.getByLabel(/Calling window end/).fill('24:00')
    // a bad number in the file: the appliance's preview names its line at the file field, and the campaign cannot start
    await page.getByLabel(/Contacts \(CSV/).setInputFiles({ name: 'bad.csv', mimeType: 'text/csv', buffer: Buffer.from('phone\n+14155550101\nnot-a-number\n') })
    await page.locator('[name="csv"][aria-invalid="true"]').waitFor()
    expect(await page.getByRole('form', { name: 'Create a campaign' }).locator('.field-error').textContent()).toContain('contactsCsv[line 3].to')
    expect(await page.getByRole('button', { name: 'Start campaign' }).isDisabled()).toBe(true)
    expect((await t.api('GET', '/api/outbound/jobs')).body.jobs).toEqual([])

    const csv = 'First Name,Phone\n"Ada, the first",+14155550101\nGrace,+14155550102\nAlan,+14155550103\n'
    await page.getByLabel(/Contacts \(CSV/).setInputFiles({ name: 'contacts.csv', mimeType: 'text/csv', buffer: Buffer.from(csv) })
    expect(await page.getByLabel('Column "Phone"').inputValue()).toBe('to')
    await page.getByLabel('Column "First Name"').fill('first')
    const preview = page.getByRole('table', { name: 'Preview: 3 contacts' })
    await preview.getByText('first=Ada, the first').waitFor()
    await checkPage('campaign-new')
    await page.getByRole('button', { name: 'Start campaign' }).click()
    await page.getByRole('heading', { name: 'Campaign Console campaign' }).waitFor()
    await page.locator('[data-counter="status"]', { hasText: 'completed' }).waitFor({ timeout: 60_000 })
    expect(await page.locator('[data-counter="completed"]').textContent()).toBe('3')
    expect(await page.locator('[data-counter="failed"]').textContent()).toBe('0')
    await page.getByRole('table', { name: 'Contacts' }).getByText('first=Grace').waitFor()
    const run = await callees.proc.exited
    expect(run.code, run.stderr).toBe(0)
    await checkPage('campaign')
  }, 90_000)

  test('campaigns: pause, resume and cancel from the campaign page change the job as the API reports it', async () => {
    const { page } = b
    const numbers = (await t.api('GET', '/api/phone-numbers')).body.phoneNumbers as any[]
    const caller = numbers.find((n) => n.e164 === '+14155550199')
    // a calling window that is closed now keeps the contact waiting while the buttons are used
    const hour = Number(new Intl.DateTimeFormat('en-US', { timeZone: 'America/Los_Angeles', hour: 'numeric', hourCycle: 'h23' }).format(new Date()))
    const far = String((hour + 12) % 24).padStart(2, '0')
    const closed = { start: `${far}:00`, end: `${far}:01` }
    const job = await t.api('POST', '/api/outbound/jobs', { body: { agentId: caller.outboundAgentId, phoneNumberId: caller.id, name: 'Held', contacts: [{ to: '+14155550105' }], settings: { callingWindow: closed } } })
    expect(job.status, JSON.stringify(job.body)).toBe(200)
    const id = job.body.job.id
    await page.goto(`${t.url}/console#/campaigns/${id}`)
    await page.getByRole('button', { name: 'Pause' }).click()
    await page.locator('[data-counter="status"]', { hasText: 'paused' }).waitFor()
    await page.getByRole('button', { name: 'Resume' }).click()
    await page.locator('[data-counter="status"]:not(:has-text("paused"))').waitFor()
    await page.getByRole('button', { name: 'Cancel' }).click()
    await page.locator('[data-counter="status"]', { hasText: 'cancelled' }).waitFor()
    expect((await t.api('GET', `/api/outbound/jobs/${id}`)).body.job.status).toBe('cancelled')
  }, 20_000)

  test('settings: a new API key is shown once and revoking it makes the API refuse it; a member is invited, promoted and given a key that expires; do-not-call numbers are added (a bad one refused at its field) and removed', async () => {
    const { page } = b
    await page.goto(`${t.url}/console#/settings`)
    await page.getByLabel('Key name').fill('ci script')
    await page.getByRole('button', { name: 'Create key' }).click()
    const secret = await page.locator('.once .secret').textContent()
    expect(secret).toStartWith('vak_')
    expect((await t.api('GET', '/api/workspaces', { key: secret })).status).toBe(200)
    await checkPage('settings')
    page.once('dialog', (d) => d.accept())
    await page.getByRole('button', { name: 'Revoke key ci script' }).click()
    await page.getByRole('button', { name: 'Revoke key ci script' }).waitFor({ state: 'detached' })
    expect((await t.api('GET', '/api/workspaces', { key: secret })).status).toBe(401)
    await page.reload()
    await page.getByRole('heading', { name: 'Settings' }).waitFor()
    expect(await page.locator('.once').count()).toBe(0)

    await page.getByLabel('Email').fill('sam@example.com')
    await page.getByRole('button', { name: 'Invite' }).click()
    await page.getByLabel('Role of sam@example.com').selectOption('admin')
    await untilAsync(async () => (await t.api('GET', `/api/workspaces/${t.workspaceId}/members`)).body.members?.some((m: any) => m.email === 'sam@example.com' && m.role === 'admin') === true, 10_000, 'the member promoted', 100)
    // a key for that member, expiring tomorrow
    const tomorrow = new Date(Date.now() + 86_400_000)
    const local = new Date(tomorrow.getTime() - tomorrow.getTimezoneOffset() * 60_000).toISOString().slice(0, 16)
    await page.getByLabel('Key name').fill('sam laptop')
    await page.getByLabel('For member').selectOption({ label: 'sam@example.com' })
    await page.getByLabel('Expires (optional)').fill(local)
    await page.getByRole('button', { name: 'Create key' }).click()
    await page.getByRole('cell', { name: 'sam laptop', exact: true }).waitFor()
    const keys = (await t.api('GET', `/api/workspaces/${t.workspaceId}/api-keys`)).body.apiKeys as any[]
    const sams = keys.find((k) => k.name === 'sam laptop')
    const members = (await t.api('GET', `/api/workspaces/${t.workspaceId}/members`)).body.members as any[]
    expect(sams.userId).toBe(members.find((m) => m.email === 'sam@example.com').userId)
    expect(Math.abs(Date.parse(sams.expiresAt) - tomorrow.getTime())).toBeLessThan(61_000)

    await page.getByLabel('Number (E.164)').fill('not a number')
    await page.getByRole('form', { name: 'Add a do-not-call number' }).getByRole('button', { name: 'Add' }).click()
    await page.locator('[name="dncNumber"][aria-invalid="true"]').waitFor()
    await page.getByLabel('Number (E.164)').fill('+14155550177')
    await page.getByRole('form', { name: 'Add a do-not-call number' }).getByRole('button', { name: 'Add' }).click()
    await page.getByRole('cell', { name: '+14155550177', exact: true }).waitFor()
    await page.getByRole('button', { name: 'Remove +14155550177' }).click()
    await page.getByRole('cell', { name: '+14155550177', exact: true }).waitFor({ state: 'detached' })
  }, 20_000)

  test('a member key: the pages still render, and what members may not do shows the API refusal instead of failing silently', async () => {
    const member = await memberKey(t, 'mo@example.com')
    const context = await b.browser.newContext()
    await context.addInitScript(`sessionStorage.setItem('voice-agent-api-key', ${JSON.stringify(member.key)})`)
    const page = await context.newPage()
    page.on('request', (r) => b.requests.push(r.url()))
    await page.goto(`${t.url}/console#/settings`)
    await page.getByRole('heading', { name: 'Settings', level: 1 }).waitFor()
    await page.getByRole('region', { name: 'API keys' }).locator('.problem').waitFor()
    expect(await page.getByRole('region', { name: 'API keys' }).locator('.problem').textContent()).toContain('may not do this (needs api-keys:manage)')
    expect(await seriousViolations(page)).toEqual([])
    await context.close()
  }, 20_000)

  test('offline: no request of the whole session left 127.0.0.1, and no CSP refusal or script error happened', () => {
    expect(b.requests.length).toBeGreaterThan(10)
    expect(externalRequests(b.requests)).toEqual([])
    expect(b.problems).toEqual([])
  })
})
