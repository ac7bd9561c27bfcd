// A caller asks a workflow agent with no LLM a question over SIP (baresip dials, the fake Deepgram
// recognises it): the answer node finds the passage in the agent's knowledge base and speaks it.
// The transcript holds the passage's words and names its document; the recording has them
// spoken. A question the documents do not answer takes the no_match edge.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { startTestAppliance, type TestAppliance } from '../../helpers/appliance.ts'
import { dialWithBaresip } from '../../helpers/baresip.ts'
import { setupCallTarget, waitForCall } from '../../helpers/calls.ts'
import { readStereoWav } from '../../helpers/media-call.ts'
import { loudWindows, phoneMicrophone } from '../../helpers/speech.ts'
import { startFakeDeepgram, type FakeDeepgram } from '../../fakes/deepgram.ts'

const HOURS = `# Opening hours

## Weekdays
Monday to Friday the clinic is open from 8 am to 6 pm.

## Saturday
On Saturdays the clinic opens at 8 am and closes at 1 pm. Saturday mornings are kept for same-day sick visits.

## Sunday
The clinic is closed on Sundays; the pharmacy opens from 10 am to 2 pm.
`

const WORKFLOW = {
  nodes: [
    { id: 'start', type: 'start', config: { text: 'Harbor clinic, how can I help?' } },
    { id: 'answer', type: 'answer', config: {} },
    { id: 'unknown', type: 'end', config: { text: 'Sorry, I cannot answer that. Goodbye.' } },
    { id: 'bye', type: 'end', config: { text: 'Thanks for calling, goodbye.' } },
  ],
  edges: [
    { from: 'start', to: 'answer' },
    { from: 'answer', to: 'unknown', condition: { type: 'no_match' } },
    { from: 'answer', to: 'bye' },
  ],
}

let t: TestAppliance
let stt: FakeDeepgram
let baseId: string

beforeAll(async () => {
  stt = startFakeDeepgram()
  t = await startTestAppliance({ STT_PROVIDER: 'deepgram', DEEPGRAM_BASE_URL: stt.url, DEEPGRAM_API_KEY: 'test-key', LLM_PROVIDER: 'none', TTS_PROVIDER: 'flite' })
  baseId = (await t.api('POST', '/api/knowledge-bases', { body: { name: 'Clinic' } })).body.knowledgeBase.id
  const doc = await t.api('POST', `/api/knowledge-bases/${baseId}/documents`, { body: { name: 'hours.md', content: HOURS } })
  expect(doc.status, JSON.stringify(doc.body)).toBe(200)
})

afterAll(async () => {
  await t?.stop()
  stt?.stop()
})

async function callWith(question: string) {
  const target = await setupCallTarget(t, { agent: { knowledgeBaseIds: [baseId] } })
  const wf = await t.api('PUT', `/api/agents/${target.agentId}/workflow`, { body: WORKFLOW })
  expect(wf.status, JSON.stringify(wf.body)).toBe(200)
  stt.utterances.push(question)
  const phone = dialWithBaresip(`sip:${target.e164.slice(1)}@127.0.0.1:${t.appliance.sip.udp}`, phoneMicrophone(question, 3000, 12000), { timeoutSec: 40 })
  try {
    expect(await phone.saw('Call established'), phone.output()).toBe(true)
    return await waitForCall(t, (c) => c.status === 'ended' && c.to === target.e164, 30_000)
  } finally {
    await phone.stop()
  }
}

test('with no LLM, the agent answers "what time do you close on Saturday" with the passage of its document, and the transcript names it', async () => {
  const call = await callWith('what time do you close on saturday')
  expect(call).toMatchObject({ outcome: 'completed', endReason: 'agent_hangup' })
  const lines = call.transcript.map((i: any) => [i.role, i.text])
  expect(lines).toEqual([
    ['agent', 'Harbor clinic, how can I help?'],
    ['user', 'what time do you close on saturday'],
    ['agent', 'On Saturdays the clinic opens at 8 am and closes at 1 pm. Saturday mornings are kept for same-day sick visits.'],
    ['agent', 'Thanks for calling, goodbye.'],
  ])
  const answer = call.transcript[2]
  expect(answer.sources).toEqual([{ passageId: expect.any(Number), documentName: 'hours.md', section: 'Saturday', score: expect.any(Number) }])
  expect(answer.sources[0].score).toBeGreaterThanOrEqual(0.5)
  // the passage was spoken: the agent's channel is loud for the seconds it takes to say it
  const rec = readStereoWav(`${t.dataDir}/recordings/${call.id}.wav`)
  expect(loudWindows(rec.right, rec.sampleRate / 10, -35)).toBeGreaterThan(40)
  const exported = await t.api('GET', `/api/calls/${call.id}/export`)
  expect(exported.body.transcript[2].sources[0].documentName).toBe('hours.md')
}, 60_000)

test('a question the documents do not answer takes the no_match edge', async () => {
  const call = await callWith('do you do cosmetic surgery on noses')
  expect(call.transcript.map((i: any) => i.text)).toEqual(['Harbor clinic, how can I help?', 'do you do cosmetic surgery on noses', 'Sorry, I cannot answer that. Goodbye.'])
  expect(call.transcript.some((i: any) => i.sources)).toBe(false)
}, 60_000)
