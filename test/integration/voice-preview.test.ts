// POST /api/agents/{id}/voice-preview: the appliance's own TTS speaks a sample in the agent's
// voice, or in a voice being tried, as a WAV the console plays.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { startTestAppliance, type TestAppliance } from '../helpers/appliance.ts'
import { loudWindows } from '../helpers/speech.ts'
import { parseWav } from '../../src/realtime/voice/audio.ts'

let t: TestAppliance
let other: TestAppliance
let agentId = ''

beforeAll(async () => {
  t = await startTestAppliance()
  other = await startTestAppliance()
  const agent = await t.api('POST', '/api/agents', { body: { name: 'Voice', voice: { provider: 'flite', voiceId: 'slt', speed: 1 } } })
  agentId = agent.body.agent.id
}, 30_000)
afterAll(async () => {
  await t?.stop()
  await other?.stop()
})

async function preview(body: unknown, key = t.adminKey, base = t.url, id = agentId) {
  return fetch(`${base}/api/agents/${id}/voice-preview`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify(body) })
}

describe('voice preview', () => {
  test("the agent's voice speaks the text: a mono 16 kHz WAV with speech in it, about as long as the sentence", async () => {
    const res = await preview({ text: 'Good morning, this is the front desk.' })
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toBe('audio/wav')
    expect(res.headers.get('x-voice-fallback')).toBeNull()
    const wav = parseWav(new Uint8Array(await res.arrayBuffer()))
    expect(wav.sampleRate).toBe(16000)
    const seconds = wav.samples.length / wav.sampleRate
    expect(seconds).toBeGreaterThan(1)
    expect(seconds).toBeLessThan(6)
    // speech, not silence: at least half a second of 20 ms windows louder than -30 dBFS
    expect(loudWindows(wav.samples, 320, -30)).toBeGreaterThan(25)
  }, 20_000)

  test("a voice in the body is tried instead of the agent's, which stays as it was", async () => {
    const text = 'Testing one two three.'
    const slt = new Uint8Array(await (await preview({ text })).arrayBuffer())
    const kal = new Uint8Array(await (await preview({ text, voice: { voiceId: 'kal' } })).arrayBuffer())
    expect(Buffer.from(kal).equals(Buffer.from(slt))).toBe(false)
    expect((await t.api('GET', `/api/agents/${agentId}`)).body.agent.voice.voiceId).toBe('slt')
  }, 20_000)

  test('a voice that cannot speak here is replaced by the default voice, and the header says so', async () => {
    const res = await preview({ voice: { provider: 'elevenlabs', voiceId: 'rachel' } })
    expect(res.status).toBe(200)
    expect(res.headers.get('x-voice-fallback')).toContain('elevenlabs/rachel')
    expect(parseWav(new Uint8Array(await res.arrayBuffer())).samples.length).toBeGreaterThan(16000)
  }, 20_000)

  test('bad input is 422 naming the field; an agent of another workspace or none is 404; no key is 401', async () => {
    const long = await preview({ text: 'x'.repeat(501) })
    expect(long.status).toBe(422)
    expect(((await long.json()) as any).error.details.fields[0].path).toBe('text')
    const speed = await preview({ voice: { speed: 9 } })
    expect(speed.status).toBe(422)
    expect(((await speed.json()) as any).error.details.fields[0].path).toBe('voice.speed')
    expect((await preview({}, other.adminKey, t.url)).status).toBe(401)
    expect((await preview({}, other.adminKey, other.url)).status).toBe(404)
    expect((await preview({}, t.adminKey, t.url, 'ag_nope')).status).toBe(404)
    expect((await fetch(`${t.url}/api/agents/${agentId}/voice-preview`, { method: 'POST' })).status).toBe(401)
  }, 20_000)
})
