// The console says what the start-up checks found (issue 23): the overview lists /ready's
// warnings and problems (a loopback PUBLIC_HOST while SIP listens beyond it, an LLM that cannot
// be reached), and a number whose agent cannot converse is "needs attention", not green "active".
import { afterAll, beforeAll, describe, expect } from 'bun:test'
import { startTestAppliance, type TestAppliance } from '../../helpers/appliance.ts'
import { type ConsoleBrowser, hasChromium, openBrowser, screenshot, seriousViolations, signIn } from '../../helpers/browser.ts'
import { setupCallTarget } from '../../helpers/calls.ts'
import { testNeedingPackage } from '../../helpers/debian.ts'
import { untilAsync } from '../../helpers/until.ts'

const test = testNeedingPackage('chromium', hasChromium)

let t: TestAppliance
let b: ConsoleBrowser
let llmUrl = ''

beforeAll(async () => {
  if (!hasChromium) return
  const closed = Bun.listen({ hostname: '127.0.0.1', port: 0, socket: { data() {} } })
  llmUrl = `http://127.0.0.1:${closed.port}/v1`
  closed.stop(true)
  t = await startTestAppliance({ PUBLIC_HOST: '127.0.0.1', SIP_HOST: '0.0.0.0', LLM_PROVIDER: 'openai', LLM_BASE_URL: llmUrl })
  b = await openBrowser()
}, 60_000)
afterAll(async () => {
  await b?.close()
  await t?.stop()
})

describe('the console shows what needs attention', () => {
  test('the overview lists the loopback PUBLIC_HOST warning and the unreachable LLM from /ready', async () => {
    await untilAsync(async () => (await t.api('GET', '/ready', { key: null })).body.status === 'degraded', 30_000, '/ready degraded', 100)
    const { page } = b
    await signIn(page, t.url, t.adminKey)
    const section = page.getByRole('region', { name: 'Needs attention' })
    await section.waitFor()
    const text = await section.textContent()
    expect(text).toContain('PUBLIC_HOST is 127.0.0.1, a loopback address, but SIP listens on 0.0.0.0')
    expect(text).toContain(`llm provider openai at ${llmUrl} cannot be reached`)
    expect(await seriousViolations(page)).toEqual([])
    await screenshot(page, 'overview-attention')
  }, 30_000)

  test('a number whose inbound agent needs the unreachable LLM shows "needs attention" instead of "active"', async () => {
    const target = await setupCallTarget(t)
    const { page } = b
    await page.goto(`${t.url}/console#/numbers`)
    const row = page.getByRole('row').filter({ hasText: target.e164.slice(-7) })
    await row.getByText('needs attention').waitFor()
    expect(await row.locator('.status-active').count()).toBe(0)
    expect(await row.textContent()).toContain('cannot be reached')
  }, 30_000)
})
