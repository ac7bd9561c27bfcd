// A number's media encryption and trunk registration set from the console, in Debian's Chromium:
// the connect and edit forms send mediaEncryption and sipRegister, the API's refusal (SRTP
// required over udp or tcp) shows at the field and changes nothing, a saved value comes back
// in the form, and a registration that fails shows its reason in the list. Screenshots for
// docs/console.md.
import { afterAll, beforeAll, describe, expect } from 'bun:test'
import { startTestAppliance, type TestAppliance } from '../../helpers/appliance.ts'
import { type ConsoleBrowser, externalRequests, hasChromium, openBrowser, screenshot, seriousViolations, signIn } from '../../helpers/browser.ts'
import { testNeedingPackage } from '../../helpers/debian.ts'
import { freePort } from '../../helpers/sipp.ts'
import { untilAsync } from '../../helpers/until.ts'

const test = testNeedingPackage('chromium', hasChromium)

let t: TestAppliance
let b: ConsoleBrowser
// nothing listens there: a REGISTER over tcp fails at once
let closedPort = 0

beforeAll(async () => {
  if (!hasChromium) return
  t = await startTestAppliance({ SIP_REGISTER_SYNC_MS: 100 })
  expect((await t.api('POST', `/api/workspaces/${t.workspaceId}/payment-methods`, { body: { provider: 'manual', reference: 'acct' } })).status).toBe(200)
  closedPort = await freePort()
  b = await openBrowser()
}, 60_000)
afterAll(async () => {
  await b?.close()
  await t?.stop()
})

async function checkPage(name: string) {
  expect(await seriousViolations(b.page)).toEqual([])
  await screenshot(b.page, name)
}

const numbers = async () => (await t.api('GET', '/api/phone-numbers')).body.phoneNumbers as any[]

describe('a number\'s media encryption and registration in the console', () => {
  test('connect: SRTP required over udp is refused at the Media encryption field and nothing is created; optional with registration is created so, and the failing registration shows its reason', async () => {
    const { page } = b
    await signIn(page, t.url, t.adminKey)
    await page.goto(`${t.url}/console#/numbers`)
    const form = page.getByRole('form', { name: 'Connect a SIP trunk number' })
    await form.getByLabel('Number (E.164)').fill('+14155550100')
    await form.getByLabel('Trunk URI').fill(`sip:127.0.0.1:${closedPort}`)
    await form.getByLabel('Transport').selectOption('udp')
    await form.getByLabel('Media encryption (SRTP)').selectOption('required')
    await form.getByLabel(/^Register with the trunk/).check()
    await form.getByRole('button', { name: 'Connect number' }).click()
    await form.locator('[name="mediaEncryption"][aria-invalid="true"]').waitFor()
    expect(await form.locator('.field-error').first().textContent()).toContain('required needs sipOutboundTransport tls')
    expect(await numbers()).toEqual([])

    await form.getByLabel('Transport').selectOption('tcp')
    await form.getByLabel('Media encryption (SRTP)').selectOption('optional')
    await form.getByRole('button', { name: 'Connect number' }).click()
    const row = page.getByRole('row').filter({ hasText: '+14155550100' })
    await row.getByRole('cell', { name: 'tcp · SRTP optional · registers' }).waitFor()
    expect(await numbers()).toMatchObject([{ e164: '+14155550100', sipOutboundTransport: 'tcp', mediaEncryption: 'optional', sipRegister: true }])
    // the registrar cannot be reached: the list says so and why
    await untilAsync(async () => (await numbers())[0]?.status === 'error', 10_000, 'the registration failed', 100)
    await page.reload()
    await row.getByText(/^registration failed/).waitFor()
    await checkPage('numbers-trunk')
  }, 30_000)

  test('edit: the form shows the saved encryption and registration; required over tcp is refused at the field and changes nothing; required over tls without registration is saved and comes back', async () => {
    const { page } = b
    const before = (await numbers())[0]
    await page.getByRole('button', { name: 'Edit +14155550100' }).click()
    const form = page.getByRole('form', { name: 'Edit +14155550100' })
    expect(await form.getByLabel('Media encryption (SRTP)').inputValue()).toBe('optional')
    expect(await form.getByLabel(/^Register with the trunk/).isChecked()).toBe(true)

    await form.getByLabel('Media encryption (SRTP)').selectOption('required')
    await form.getByRole('button', { name: 'Save number' }).click()
    await form.locator('[name="mediaEncryption"][aria-invalid="true"]').waitFor()
    await checkPage('number-edit-trunk')
    expect((await numbers())[0]).toMatchObject({ mediaEncryption: 'optional', sipOutboundTransport: 'tcp', sipRegister: true, updatedAt: before.updatedAt })

    await form.getByLabel('Transport').selectOption('tls')
    await form.getByLabel(/^Register with the trunk/).uncheck()
    await form.getByRole('button', { name: 'Save number' }).click()
    await form.waitFor({ state: 'detached' })
    expect((await numbers())[0]).toMatchObject({ mediaEncryption: 'required', sipOutboundTransport: 'tls', sipRegister: false })
    await page.getByRole('row').filter({ hasText: '+14155550100' }).getByRole('cell', { name: 'tls · SRTP required', exact: true }).waitFor()

    await page.getByRole('button', { name: 'Edit +14155550100' }).click()
    expect(await form.getByLabel('Media encryption (SRTP)').inputValue()).toBe('required')
    expect(await form.getByLabel(/^Register with the trunk/).isChecked()).toBe(false)
    expect(externalRequests(b.requests)).toEqual([])
    expect(b.problems).toEqual([])
  }, 30_000)
})
