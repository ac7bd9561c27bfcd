// The browser-call panel's per-turn latency against the call record, in Debian's Chromium: a
// workflow agent (in a call worker, as the appliance runs calls) answers the caller's words from
// the fake microphone and then waits, so the panel is read while the call is still up; the
// figure it shows then, and after hang-up, is the one the call record keeps.
import { afterAll, beforeAll, describe, expect } from 'bun:test'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Browser, Page } from 'playwright-core'
import { concatFrames, writeWav } from '../../../src/realtime/voice/audio.ts'
import { type FakeDeepgram, startFakeDeepgram } from '../../fakes/deepgram.ts'
import { memberKey, startTestAppliance, type TestAppliance } from '../../helpers/appliance.ts'
import { externalRequests, hasChromium, launchWithMicrophone, screenshot, seriousViolations, signIn } from '../../helpers/browser.ts'
import { waitForCall } from '../../helpers/calls.ts'
import { testNeedingPackage } from '../../helpers/debian.ts'
import { fliteSpeech, silence } from '../../helpers/speech.ts'

const test = testNeedingPackage('chromium', hasChromium)

const WORDS = 'what are your opening hours'
// after the hours the workflow listens for a goodbye the caller never says, so the call stays up
const WORKFLOW = {
  nodes: [
    { id: 'start', type: 'start', config: { text: 'Hello from the front desk. Ask about hours.' } },
    { id: 'hours', type: 'say', config: { text: 'We are open nine to five.' } },
    { id: 'bye', type: 'end', config: { text: 'Goodbye.' } },
  ],
  edges: [
    { from: 'start', to: 'hours', condition: { type: 'keywords', keywords: ['hours'] } },
    { from: 'start', to: 'bye', condition: { type: 'else' } },
    { from: 'hours', to: 'bye', condition: { type: 'keywords', keywords: ['goodbye'] } },
  ],
}

let t: TestAppliance
let stt: FakeDeepgram
let browser: Browser
let page: Page
let dir: string
let agentId: string
const requests: string[] = []
const problems: string[] = []

beforeAll(async () => {
  if (!hasChromium) return
  stt = startFakeDeepgram()
  t = await startTestAppliance({
    STT_PROVIDER: 'deepgram', DEEPGRAM_BASE_URL: stt.url, DEEPGRAM_API_KEY: 'test-key', TTS_PROVIDER: 'flite', WEBRTC_HOST_ADDRESSES: '127.0.0.1',
  })
  const agent = await t.api('POST', '/api/agents', { body: { name: 'Front desk' } })
  expect(agent.status, JSON.stringify(agent.body)).toBe(200)
  agentId = agent.body.agent.id
  expect((await t.api('PUT', `/api/agents/${agentId}/workflow`, { body: WORKFLOW })).status).toBe(200)
  dir = mkdtempSync(join(tmpdir(), 'browser-call-latency-'))
  const wav = join(dir, 'speech.wav')
  // silence while the greeting plays, the words, then silence for as long as the test reads the panel
  writeFileSync(wav, writeWav(concatFrames([silence(7000, 16000), fliteSpeech(WORDS), silence(20_000, 16000)])))
  browser = await launchWithMicrophone(wav)
  page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage()
  page.on('request', (r) => requests.push(r.url()))
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`))
}, 60_000)

afterAll(async () => {
  await browser?.close()
  await t?.stop()
  stt?.stop()
  if (dir) rmSync(dir, { recursive: true, force: true })
})

const turnLine = () => page.getByRole('list', { name: 'Turn latency' }).getByRole('listitem').first()
const shownMs = async () => Number(/voice to voice (\d+) ms/.exec((await turnLine().textContent()) ?? '')?.[1])

describe('the browser-call panel shows each turn\'s latency', () => {
  test('while the call is up the answered turn shows its voice-to-voice figure, not "not measured", and after hang-up the panel and the call record agree', async () => {
    stt.utterances.push(WORDS)
    const member = await memberKey(t, 'caller@example.com')
    await signIn(page, t.url, member.key)
    await page.goto(`${t.url}/console#/agents/${agentId}`)
    await page.getByRole('button', { name: 'Call from browser' }).click()
    await page.getByRole('list', { name: 'Live transcript' }).getByText('We are open nine to five.').waitFor({ timeout: 30_000 })
    // the call is still up (the workflow waits for the caller) and the turn has its figure
    await turnLine().filter({ hasText: /voice to voice \d+ ms, response \d+ ms/ }).waitFor({ timeout: 5_000 })
    expect(await page.getByRole('status').textContent()).toContain('In call (in_progress)')
    const live = await shownMs()
    expect(await seriousViolations(page)).toEqual([])
    await screenshot(page, 'browser-call-latency')

    await page.getByRole('button', { name: 'Hang up' }).click()
    const link = page.getByRole('link', { name: "Open the call's page" })
    await link.waitFor({ timeout: 10_000 })
    const callId = (await link.getAttribute('href'))!.split('/').at(-1)!
    const call = await waitForCall(t, (c) => c.id === callId && c.status === 'ended', 20_000)
    const recorded = call.metrics.turns[0].voiceToVoiceMs
    expect(typeof recorded).toBe('number')
    expect(live).toBe(Math.round(recorded))
    // after the end the panel reads the record
    await turnLine().filter({ hasText: `voice to voice ${Math.round(recorded)} ms` }).waitFor()
    expect(await page.getByRole('list', { name: 'Turn latency' }).getByRole('listitem').count()).toBe(call.metrics.turns.length)
    expect(externalRequests(requests)).toEqual([])
    expect(problems).toEqual([])
  }, 90_000)
})
