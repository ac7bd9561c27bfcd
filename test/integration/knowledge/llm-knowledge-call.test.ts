// An LLM agent with a knowledge base, over SIP (baresip dials, the fake Deepgram recognises, the
// fake OpenAI answers): the model calls knowledge_search and the passage reaches its next
// request; with knowledgeAutoSearch the passage is before it in the first request already. The
// transcript's agent line names the passage either way.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { startTestAppliance, type TestAppliance } from '../../helpers/appliance.ts'
import { dialWithBaresip } from '../../helpers/baresip.ts'
import { setupCallTarget, waitForCall } from '../../helpers/calls.ts'
import { phoneMicrophone } from '../../helpers/speech.ts'
import { startFakeDeepgram, type FakeDeepgram } from '../../fakes/deepgram.ts'
import { startFakeOpenAi, type FakeOpenAi } from '../../fakes/openai.ts'
import { KNOWLEDGE_MIN_SCORE } from '../../../src/features/knowledge/index.ts'

const HOURS = '# Opening hours\n\n## Saturday\nOn Saturdays the clinic opens at 8 am and closes at 1 pm.\n\n## Parking\nThe garage behind the clinic costs $2 an hour.\n'

let t: TestAppliance
let stt: FakeDeepgram
let llm: FakeOpenAi
let baseId: string

beforeAll(async () => {
  stt = startFakeDeepgram()
  llm = startFakeOpenAi()
  t = await startTestAppliance({ STT_PROVIDER: 'deepgram', DEEPGRAM_BASE_URL: stt.url, DEEPGRAM_API_KEY: 'k', LLM_PROVIDER: 'openai', LLM_BASE_URL: llm.url, LLM_API_KEY: 'k', TTS_PROVIDER: 'flite' })
  baseId = (await t.api('POST', '/api/knowledge-bases', { body: { name: 'Clinic' } })).body.knowledgeBase.id
  await t.api('POST', `/api/knowledge-bases/${baseId}/documents`, { body: { name: 'hours.md', content: HOURS } })
})

afterAll(async () => {
  await t?.stop()
  stt?.stop()
  llm?.stop()
})

async function call(agent: Record<string, unknown>, question: string) {
  const target = await setupCallTarget(t, { agent: { promptPublished: 'You are the receptionist of the clinic.', knowledgeBaseIds: [baseId], ...agent } })
  stt.utterances.push(question)
  const before = llm.requests.length
  const phone = dialWithBaresip(`sip:${target.e164.slice(1)}@127.0.0.1:${t.appliance.sip.udp}`, phoneMicrophone(question, 3000, 10000), { timeoutSec: 40 })
  try {
    expect(await phone.saw('Call established'), phone.output()).toBe(true)
    const done = await waitForCall(t, (c) => c.status === 'ended' && c.to === target.e164, 30_000)
    // the post-call analysis also asks the LLM (structured output): only the conversation's requests count
    return { call: done, requests: llm.requests.slice(before).filter((r) => r.path.endsWith('/chat/completions') && r.body.response_format?.type !== 'json_schema').map((r) => r.body) }
  } finally {
    await phone.stop()
  }
}

const sourcesOf = (call: any) => call.transcript.filter((i: any) => i.sources).map((i: any) => i.sources.map((s: any) => `${s.documentName} > ${s.section}`))

test('the LLM calls knowledge_search; the passage reaches its next request and the transcript names it', async () => {
  llm.chat.push({ text: '', toolCalls: [{ name: 'knowledge_search', arguments: JSON.stringify({ query: 'saturday closing time' }) }], usage: { prompt: 40, completion: 5 } })
  llm.chat.push({ text: '', toolCalls: [{ name: 'end_call', arguments: JSON.stringify({ message: 'We close at 1 pm on Saturdays. Goodbye!' }) }], usage: { prompt: 80, completion: 10 } })
  const { call: done, requests } = await call({}, 'what time do you close on saturday')
  expect(requests[0].tools.map((x: any) => x.function.name)).toContain('knowledge_search')
  const tool = requests[1].messages.find((m: any) => m.role === 'tool')
  const result = JSON.parse(tool.content)
  expect(result.passages[0]).toMatchObject({ source: 'hours.md > Saturday', text: 'On Saturdays the clinic opens at 8 am and closes at 1 pm.' })
  expect(result.found).toBe(true)
  expect(result.passages[0].confidence).toBeGreaterThanOrEqual(KNOWLEDGE_MIN_SCORE)
  expect(done.transcript.map((i: any) => i.text)).toContain('We close at 1 pm on Saturdays. Goodbye!')
  expect(sourcesOf(done)).toEqual([['hours.md > Saturday']])
}, 60_000)

test("with knowledgeAutoSearch the caller's turn finds the passage, which is before the LLM in its first request", async () => {
  llm.chat.push({ text: '', toolCalls: [{ name: 'end_call', arguments: JSON.stringify({ message: 'Parking is two dollars an hour. Goodbye!' }) }], usage: { prompt: 80, completion: 10 } })
  const { call: done, requests } = await call({ knowledgeAutoSearch: true }, 'how much is parking')
  const notes = requests[0].messages.filter((m: any) => m.role === 'system').map((m: any) => m.content)
  expect(notes[1]).toContain('[1] hours.md > Parking: The garage behind the clinic costs $2 an hour.')
  expect(sourcesOf(done)).toEqual([['hours.md > Parking']])
}, 60_000)

// the documents say when the clinic closes and what parking costs, not whether parking is free on Sundays
const NOT_ANSWERED = 'is parking at the clinic free on sundays'

test('knowledge_search says plainly that nothing relevant was found when no passage is sure enough, and cites none', async () => {
  llm.chat.push({ text: '', toolCalls: [{ name: 'knowledge_search', arguments: JSON.stringify({ query: NOT_ANSWERED }) }], usage: { prompt: 40, completion: 5 } })
  llm.chat.push({ text: '', toolCalls: [{ name: 'end_call', arguments: JSON.stringify({ message: 'I do not have that information. Goodbye!' }) }], usage: { prompt: 80, completion: 10 } })
  const { call: done, requests } = await call({}, NOT_ANSWERED)
  const result = JSON.parse(requests[1].messages.find((m: any) => m.role === 'tool').content)
  expect(result).toMatchObject({ found: false, passages: [] })
  expect(result.note).toContain('Nothing relevant was found')
  expect(sourcesOf(done)).toEqual([])
}, 60_000)

test('with knowledgeAutoSearch a turn the documents do not answer puts no passage before the LLM', async () => {
  llm.chat.push({ text: '', toolCalls: [{ name: 'end_call', arguments: JSON.stringify({ message: 'I do not have that information. Goodbye!' }) }], usage: { prompt: 80, completion: 10 } })
  const { requests } = await call({ knowledgeAutoSearch: true }, NOT_ANSWERED)
  const notes = requests[0].messages.filter((m: any) => m.role === 'system').map((m: any) => m.content)
  expect(notes.some((n: string) => n.includes('hours.md'))).toBe(false)
}, 60_000)
