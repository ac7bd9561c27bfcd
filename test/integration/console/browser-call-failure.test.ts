// Issue 44: "a failed browser call gives no reason anywhere". Debian's Chromium started without
// --allow-loopback-in-peer-connection cannot reach an appliance whose only host candidate is
// 127.0.0.1 (docs/webrtc.md, a browser on the same host): the console now says why the call
// failed, and the record says it too (endReason and media.web.failure ice_failed).
import { afterAll, beforeAll, expect } from 'bun:test'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Browser, Page } from 'playwright-core'
import { writeWav } from '../../../src/realtime/voice/audio.ts'
import { memberKey, startTestAppliance, type TestAppliance } from '../../helpers/appliance.ts'
import { hasChromium, launchWithMicrophone, seriousViolations, signIn } from '../../helpers/browser.ts'
import { waitForCall } from '../../helpers/calls.ts'
import { testNeedingPackage } from '../../helpers/debian.ts'
import { silence } from '../../helpers/speech.ts'

const test = testNeedingPackage('chromium', hasChromium)

let t: TestAppliance
let browser: Browser
let page: Page
let dir: string
let agentId: string
let member: { key: string; userId: string }

beforeAll(async () => {
  if (!hasChromium) return
  t = await startTestAppliance({ TTS_PROVIDER: 'flite', WEBRTC_HOST_ADDRESSES: '127.0.0.1', WEB_CALL_CONNECT_MS: 5000 })
  const agent = await t.api('POST', '/api/agents', { body: { name: 'Front desk', welcome: { mode: 'agent_speaks_first', message: 'Hello' } } })
  agentId = agent.body.agent.id
  member = await memberKey(t, 'caller@example.com')
  dir = mkdtempSync(join(tmpdir(), 'browser-call-failure-'))
  const wav = join(dir, 'silence.wav')
  writeFileSync(wav, writeWav(silence(3000, 16000)))
  browser = await launchWithMicrophone(wav, { loopback: false })
  page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage()
}, 60_000)

afterAll(async () => {
  await browser?.close()
  await t?.stop()
  if (dir) rmSync(dir, { recursive: true, force: true })
})

test('a browser call that cannot connect says why on the page and on the record: ice_failed', async () => {
  await signIn(page, t.url, member.key)
  await page.goto(`${t.url}/console#/agents/${agentId}`)
  await page.getByRole('button', { name: 'Call from browser' }).click()
  const status = page.getByRole('status').filter({ hasText: 'The call failed' })
  await status.waitFor({ timeout: 30_000 })
  expect(await status.textContent()).toContain('The call failed (ice_failed)')
  expect(await status.textContent()).toContain('--allow-loopback-in-peer-connection')
  expect(await seriousViolations(page)).toEqual([])
  const call = await waitForCall(t, (c) => c.type === 'web' && c.status === 'ended', 20_000)
  expect(call).toMatchObject({ outcome: 'failed', endReason: 'ice_failed' })
  expect(call.media.web).toEqual({ ice: 'failed', dtls: 'new', failure: 'ice_failed' })
}, 90_000)
