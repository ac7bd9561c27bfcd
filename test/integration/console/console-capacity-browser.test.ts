// The console's overview shows the node's capacity, calls up and headroom from /ready, and says
// when a full node refuses new calls. The capacity model is injected: a fixed ceiling of 2.
import { afterAll, beforeAll, expect } from 'bun:test'
import { startTestAppliance, type TestAppliance } from '../../helpers/appliance.ts'
import { type ConsoleBrowser, hasChromium, openBrowser, screenshot, seriousViolations, signIn } from '../../helpers/browser.ts'
import { testNeedingPackage } from '../../helpers/debian.ts'
import { fixedCapacity } from '../../../src/features/calls/index.ts'

const test = testNeedingPackage('chromium', hasChromium)

let t: TestAppliance
let b: ConsoleBrowser

beforeAll(async () => {
  if (!hasChromium) return
  t = await startTestAppliance({}, undefined, undefined, { capacity: fixedCapacity(2) })
  b = await openBrowser()
}, 60_000)
afterAll(async () => {
  await b?.close()
  await t?.stop()
})

test('the overview shows capacity, calls up and headroom', async () => {
  const { page } = b
  await signIn(page, t.url, t.adminKey)
  const section = page.getByRole('region', { name: 'Capacity' })
  await section.waitFor()
  const text = await section.textContent()
  expect(text).toContain('Capacity2 calls')
  expect(text).toContain('Calls up0')
  expect(text).toContain('Headroom2 calls')
  expect(await seriousViolations(page)).toEqual([])
  await screenshot(page, 'overview-capacity')
}, 30_000)
