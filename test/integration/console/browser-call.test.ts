// "Call from browser" in Debian's Chromium: the page's own microphone (a fake device playing
// flite speech from a WAV) and WebRTC peer talk to a workflow agent of the appliance, which
// answers with host candidates on 127.0.0.1 only. The greeting reaches the page's analyser, the
// caller's words (fake Deepgram) move the workflow on its keyword and show in the live transcript,
// the call is stored as type web with both recording channels, and nothing, neither a request nor
// an ICE candidate, leaves 127.0.0.1. The draft choice of the workflow editor runs the unsaved
// graph and marks the call testDraft.
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
import { readStereoWav } from '../../helpers/media-call.ts'
import { fliteSpeech, loudWindows, silence } from '../../helpers/speech.ts'
import { hoursWorkflow } from '../../helpers/hours-workflow.ts'

const test = testNeedingPackage('chromium', hasChromium)

const WORKFLOW = hoursWorkflow('Hello from the front desk. Ask about hours.')
const WORDS = 'what are your opening hours'

let t: TestAppliance
let stt: FakeDeepgram
let browser: Browser
let page: Page
let dir: string
let agentId: string
let member: { key: string; userId: string }
const requests: string[] = []
const answers: string[] = []
const problems: string[] = []

beforeAll(async () => {
  if (!hasChromium) return
  stt = startFakeDeepgram()
  t = await startTestAppliance({
    STT_PROVIDER: 'deepgram', DEEPGRAM_BASE_URL: stt.url, DEEPGRAM_API_KEY: 'test-key', TTS_PROVIDER: 'flite', WEBRTC_HOST_ADDRESSES: '127.0.0.1',
  })
  const agent = await t.api('POST', '/api/agents', { body: { name: 'Front desk', promptDraft: 'draft prompt', welcome: { mode: 'agent_speaks_first', message: 'Hello' } } })
  expect(agent.status, JSON.stringify(agent.body)).toBe(200)
  agentId = agent.body.agent.id
  expect((await t.api('PUT', `/api/agents/${agentId}/workflow`, { body: WORKFLOW })).status).toBe(200)
  member = await memberKey(t, 'caller@example.com')
  // the microphone: silence while the greeting plays, the words, then silence (played once)
  dir = mkdtempSync(join(tmpdir(), 'browser-call-'))
  const wav = join(dir, 'speech.wav')
  writeFileSync(wav, writeWav(concatFrames([silence(7000, 16000), fliteSpeech(WORDS), silence(3000, 16000)])))
  browser = await launchWithMicrophone(wav)
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } })
  page = await context.newPage()
  page.on('request', (r) => requests.push(r.url()))
  page.on('response', async (r) => {
    if (r.request().method() === 'POST' && /\/web-calls$/.test(new URL(r.url()).pathname) && r.status() === 201) answers.push((await r.json()).sdp)
  })
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`))
  page.on('console', (m) => {
    if (m.type() === 'error' && /Content Security Policy|Refused to/i.test(m.text())) problems.push(`csp: ${m.text()}`)
  })
  // every peer connection the page makes, to read its stats (the page's code is unchanged)
  await page.addInitScript(() => {
    const g = globalThis as any
    const Native = g.RTCPeerConnection
    const peers: any[] = []
    g.__peers = peers
    g.RTCPeerConnection = class extends Native {
      constructor(config?: unknown) {
        super(config)
        peers.push(this)
      }
    }
  })
}, 60_000)

afterAll(async () => {
  await browser?.close()
  await t?.stop()
  stt?.stop()
  if (dir) rmSync(dir, { recursive: true, force: true })
})

/** The selected candidate pair of the page's last peer connection: local and remote address. */
async function selectedPair(): Promise<{ local?: string; remote?: string; state?: string }> {
  return page.evaluate(async () => {
    const pc = (globalThis as any).__peers.at(-1)
    const stats = [...(await pc.getStats()).values()] as any[]
    const transport = stats.find((s) => s.type === 'transport')
    const pair = stats.find((s) => s.type === 'candidate-pair' && (s.id === transport?.selectedCandidatePairId || (!transport?.selectedCandidatePairId && s.nominated)))
    const cand = (id: string) => stats.find((s) => s.id === id)
    return { local: cand(pair?.localCandidateId)?.address, remote: cand(pair?.remoteCandidateId)?.address, state: pair?.state }
  })
}

const peak = async (label: string) => Number(await page.getByRole('meter', { name: label }).getAttribute('data-peak'))

describe('calling an agent from the browser', () => {
  test('the agent page calls a workflow agent: greeting heard, words transcribed, keyword followed, recorded as web with both channels, all on 127.0.0.1', async () => {
    stt.utterances.push(WORDS)
    await signIn(page, t.url, member.key)
    await page.goto(`${t.url}/console#/agents/${agentId}`)
    await page.getByRole('button', { name: 'Call from browser' }).click()
    const transcript = page.getByRole('list', { name: 'Live transcript' })
    await transcript.getByText('Hello from the front desk. Ask about hours.').waitFor({ timeout: 15_000 })
    // the greeting reaches the page: the analyser on the remote track measures it
    await page.waitForFunction(() => Number((globalThis as any).document.querySelector('meter[aria-label="Agent level"]')?.getAttribute('data-peak')) > 0.3, undefined, { timeout: 15_000 })
    expect(await peak('Agent level')).toBeGreaterThan(0.3)
    expect(await seriousViolations(page)).toEqual([])
    await screenshot(page, 'browser-call')
    const pair = await selectedPair()
    expect(pair).toMatchObject({ local: '127.0.0.1', remote: '127.0.0.1', state: 'succeeded' })
    // the caller's words, then the keyword's node
    await transcript.getByText(WORDS).waitFor({ timeout: 20_000 })
    expect(await peak('Microphone level')).toBeGreaterThan(0.3)
    await transcript.getByText('We are open nine to five.').waitFor({ timeout: 15_000 })
    expect(await page.getByRole('list', { name: 'Turn latency' }).textContent()).toMatch(/turn 1: voice to voice \d+ ms/)
    // the end node hangs up; the panel links to the call's page
    const link = page.getByRole('link', { name: "Open the call's page" })
    await link.waitFor({ timeout: 20_000 })
    expect(await seriousViolations(page)).toEqual([])

    expect(answers.length).toBe(1)
    const candidates = answers[0]!.split(/\r?\n/).filter((l) => l.startsWith('a=candidate'))
    expect(candidates.length).toBeGreaterThan(0)
    for (const line of candidates) expect(line.split(' ')[4]).toBe('127.0.0.1')

    const callId = (await link.getAttribute('href'))!.split('/').at(-1)!
    const call = await waitForCall(t, (c) => c.id === callId && c.status === 'ended', 20_000)
    expect(call).toMatchObject({ type: 'web', from: member.userId, agentId, outcome: 'completed' })
    expect(call.testDraft).toBeUndefined()
    const lines = call.transcript.map((i: any) => `${i.role}: ${i.text}`)
    expect(lines).toContain(`user: ${WORDS}`)
    expect(lines).toContain('agent: We are open nine to five.')
    const rec = await fetch(`${t.url}/api/calls/${callId}/recording`, { headers: { authorization: `Bearer ${t.adminKey}` } })
    expect(rec.status).toBe(200)
    const file = join(dir, 'recording.wav')
    writeFileSync(file, new Uint8Array(await rec.arrayBuffer()))
    const { left, right, sampleRate } = readStereoWav(file)
    const window = sampleRate / 50
    expect(loudWindows(left, window, -40)).toBeGreaterThan(10)
    expect(loudWindows(right, window, -40)).toBeGreaterThan(10)

    await link.click()
    // the member and the agent by name, not by id
    await page.getByRole('heading', { name: 'Call caller@example.com → Front desk', level: 1 }).waitFor()
    expect(externalRequests(requests)).toEqual([])
    expect(problems).toEqual([])
  }, 90_000)

  test('the workflow editor tests the unsaved graph: the draft greeting plays, the call is marked as a draft test, hang-up ends it, the saved workflow is unchanged', async () => {
    await page.goto(`${t.url}/console#/agents/${agentId}/workflow`)
    const graph = page.getByLabel('Graph (nodes, edges, settings)')
    await graph.waitFor()
    await graph.fill(JSON.stringify({ ...WORKFLOW, nodes: WORKFLOW.nodes.map((n) => (n.id === 'start' ? { ...n, config: { text: 'This is the draft greeting.' } } : n)) }))
    await page.getByRole('checkbox', { name: /^Test the draft/ }).check()
    await page.getByRole('button', { name: 'Call from browser' }).click()
    await page.getByRole('list', { name: 'Live transcript' }).getByText('This is the draft greeting.').waitFor({ timeout: 15_000 })
    await page.getByRole('status').getByText('draft test').waitFor()
    await page.getByRole('button', { name: 'Hang up' }).click()
    const link = page.getByRole('link', { name: "Open the call's page" })
    await link.waitFor({ timeout: 10_000 })
    expect(await page.evaluate(() => (globalThis as any).__peers.at(-1).connectionState)).toBe('closed')
    const callId = (await link.getAttribute('href'))!.split('/').at(-1)!
    const call = await waitForCall(t, (c) => c.id === callId && c.status === 'ended', 20_000)
    expect(call).toMatchObject({ type: 'web', testDraft: true })
    expect((await t.api('GET', `/api/agents/${agentId}/workflow`)).body.workflow.nodes[0].config.text).toBe(WORKFLOW.nodes[0]!.config.text)

    await page.goto(`${t.url}/console#/calls`)
    const row = page.getByRole('row').filter({ has: page.getByRole('link', { name: /^web caller@example\.com → Front desk/ }) })
    await row.first().waitFor()
    expect(await row.filter({ hasText: 'draft test' }).count()).toBe(1)
    expect(await seriousViolations(page)).toEqual([])
    expect(externalRequests(requests)).toEqual([])
    expect(problems).toEqual([])
  }, 60_000)
})
