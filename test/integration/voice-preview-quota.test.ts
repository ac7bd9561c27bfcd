// Issue 24, finding 6: a 500-character voice preview cost 0.42 s of flite and one member could
// ask for 50 a second. The text is capped, and each workspace gets a few previews at a time and
// per minute; more get 429 with Retry-After and the JSON error body.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { startTestAppliance, type TestAppliance } from '../helpers/appliance.ts'

let t: TestAppliance
let rated: TestAppliance

beforeAll(async () => {
  t = await startTestAppliance()
  rated = await startTestAppliance({ VOICE_PREVIEW_PER_MIN: 3, VOICE_PREVIEW_CONCURRENCY: 0 })
}, 30_000)
afterAll(async () => {
  await t?.stop()
  await rated?.stop()
})

async function agentOf(app: TestAppliance, key = app.adminKey): Promise<string> {
  return (await app.api('POST', '/api/agents', { key, body: { name: 'Voice', voice: { provider: 'flite', voiceId: 'kal16', speed: 1 } } })).body.agent.id
}

function preview(app: TestAppliance, id: string, body: unknown, key = app.adminKey) {
  return fetch(`${app.url}/api/agents/${id}/voice-preview`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify(body) })
}

async function expectRefusal(res: Response): Promise<void> {
  expect(res.status).toBe(429)
  const retryAfter = Number(res.headers.get('retry-after'))
  expect(retryAfter).toBeGreaterThanOrEqual(1)
  const body = (await res.json()) as any
  expect(body.error).toMatchObject({ code: 'rate_limited', details: { retryAfterSec: retryAfter } })
  expect(typeof body.error.message).toBe('string')
}

describe('voice preview limits', () => {
  test("the probe's 500-character text is refused with 422 naming text; 300 characters still speak", async () => {
    const id = await agentOf(t)
    const long = await preview(t, id, { text: 'a'.repeat(500) })
    expect(long.status).toBe(422)
    expect(((await long.json()) as any).error).toMatchObject({ code: 'validation_failed', details: { fields: [{ path: 'text' }] } })
    const atCap = await preview(t, id, { text: 'Hello there. '.repeat(30).slice(0, 300) })
    expect(atCap.status).toBe(200)
    expect(atCap.headers.get('content-type')).toBe('audio/wav')
  }, 30_000)

  test('a workspace asking for many previews at once gets one at a time; the rest are 429 with Retry-After', async () => {
    const id = await agentOf(t)
    const text = 'Hello there. '.repeat(30).slice(0, 300)
    const answers = await Promise.all(Array.from({ length: 8 }, () => preview(t, id, { text })))
    const ok = answers.filter((r) => r.status === 200)
    const refused = answers.filter((r) => r.status !== 200)
    expect(ok.length).toBeGreaterThanOrEqual(1)
    expect(refused.length).toBeGreaterThanOrEqual(1)
    for (const r of refused) await expectRefusal(r)
    for (const r of ok) await r.arrayBuffer()
    // once they are done the workspace may preview again
    expect((await preview(t, id, { text: 'Again.' })).status).toBe(200)
  }, 30_000)

  test('past VOICE_PREVIEW_PER_MIN the workspace gets 429 until its allowance refills; another workspace does not', async () => {
    const id = await agentOf(rated)
    for (let i = 0; i < 3; i++) expect((await preview(rated, id, { text: `Number ${i}.` })).status).toBe(200)
    const fourth = await preview(rated, id, { text: 'Number four.' })
    await expectRefusal(fourth)
    expect(Number(fourth.headers.get('retry-after'))).toBeLessThanOrEqual(20)
    // a workspace created with the same user's key comes with its own key
    const key = (await rated.api('POST', '/api/workspaces', { body: { name: 'Other' } })).body.apiKey.key as string
    const otherAgent = await agentOf(rated, key)
    expect((await preview(rated, otherAgent, { text: 'Hello.' }, key)).status).toBe(200)
  }, 30_000)
})
