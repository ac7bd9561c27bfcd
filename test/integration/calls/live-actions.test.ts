// A supervisor acts on a live SIP call (baresip the caller, the call in a call worker): `say` is
// heard on the caller's side, `note` reaches the next LLM request and is never spoken, hold,
// resume, mute and unmute, and hangup ends the call. Each action is in the call's audit and
// goes out as call.action; a member without calls:supervise gets 403, another workspace 404,
// an ended call 409.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { memberKey, startTestAppliance, type TestAppliance } from '../../helpers/appliance.ts'
import { dialWithBaresip } from '../../helpers/baresip.ts'
import { setupCallTarget, waitForCall, type CallSetup } from '../../helpers/calls.ts'
import { seedCall } from '../../helpers/call-records.ts'
import { readStereoWav } from '../../helpers/media-call.ts'
import { SIPP_PCAP_DIR } from '../../helpers/pcap.ts'
import { freePort, scenarioFrom, sipp } from '../../helpers/sipp.ts'
import { fliteSpeech, loudness, loudWindows, silence } from '../../helpers/speech.ts'
import { until } from '../../helpers/until.ts'
import { startReceiver, type Receiver } from '../../helpers/webhook-receiver.ts'
import { startFakeDeepgram, type FakeDeepgram } from '../../fakes/deepgram.ts'
import { startFakeOpenAi, type FakeOpenAi } from '../../fakes/openai.ts'
import { concatFrames, parseWav, writeWav } from '../../../src/realtime/voice/audio.ts'
import { resample } from '../../../src/realtime/voice/resample.ts'

const NOTE = 'The caller is a priority customer; offer the direct line.'
const SAID = 'Hello, a supervisor has joined this call.'
const DESK = 'sip:desk@127.0.0.1:5999'
const FIXTURES = join(import.meta.dir, '../../fixtures/sip')
const REPLY = 'We open at nine in the morning, Monday to Friday.'

let t: TestAppliance
let llm: FakeOpenAi
let stt: FakeDeepgram
let rx: Receiver
let target: CallSetup
let memberApiKey: string
let memberUserId: string
let otherWorkspaceKey: string

beforeAll(async () => {
  llm = startFakeOpenAi()
  stt = startFakeDeepgram()
  rx = startReceiver()
  t = await startTestAppliance({
    VAD_ENGINE: 'silero',
    STT_PROVIDER: 'deepgram',
    DEEPGRAM_BASE_URL: stt.url,
    DEEPGRAM_API_KEY: 'test-key',
    LLM_PROVIDER: 'openai',
    LLM_BASE_URL: llm.url,
    LLM_API_KEY: 'test-key',
    TTS_PROVIDER: 'flite',
    CALL_WORKERS: '1',
    WEBHOOK_ALLOW_HTTP: true,
    WEBHOOK_ALLOW_PRIVATE: true,
    BACKGROUND_POLL_MS: 25,
  })
  // the caller speaks first and the agent has no welcome: the only agent audio before its reply is the supervisor's line
  target = await setupCallTarget(t, { agent: { promptPublished: 'You are the receptionist.', welcome: { mode: 'user_speaks_first', message: '' }, webhookUrl: rx.url } })
  const member = await memberKey(t, 'member@example.com', 'member')
  memberApiKey = member.key
  memberUserId = member.userId
  const other = await t.api('POST', '/api/workspaces', { body: { name: 'Elsewhere' } })
  otherWorkspaceKey = other.body.apiKey.key
})

afterAll(async () => {
  await t?.stop()
  llm?.stop()
  stt?.stop()
  await rx?.stop()
})

/** Silence while the supervisor speaks and leaves a note, then one question, then silence. */
function callerWav(): Uint8Array {
  const rate = 16000
  const audio = concatFrames([silence(7000, rate), fliteSpeech('what are your opening hours'), silence(25000, rate)])
  return writeWav({ samples: resample(audio.samples, rate, 8000), sampleRate: 8000 })
}

const act = (callId: string, body: unknown, key?: string) => t.api('POST', `/api/calls/${callId}/actions`, { body, ...(key && { key }) })

test('a supervisor says, notes, holds, mutes and hangs up a live SIP call; each action is audited and sent as call.action', async () => {
  stt.utterances.push('what are your opening hours')
  llm.chat.push({ text: REPLY, usage: { prompt: 80, completion: 12 } })
  const phone = dialWithBaresip(`sip:${target.e164.slice(1)}@127.0.0.1:${t.appliance.sip.udp}`, callerWav(), { timeoutSec: 60 })
  try {
    expect(await phone.saw('Call established'), phone.output()).toBe(true)
    const live = await waitForCall(t, (c) => c.status === 'in_progress' && c.to === target.e164, 20_000)

    // who may act: a member's key lacks calls:supervise, another workspace does not see the call
    const refused = await act(live.id, { type: 'say', text: SAID }, memberApiKey)
    expect(refused.status).toBe(403)
    expect(refused.body.error.details).toMatchObject({ permission: 'calls:supervise' })
    expect((await act(live.id, { type: 'hangup' }, otherWorkspaceKey)).status).toBe(404)
    expect((await act(live.id, { type: 'say' })).status).toBe(422)

    // an admin grants the member calls:supervise: their key may act at once
    const granted = await t.api('PUT', `/api/workspaces/${t.workspaceId}/members/${memberUserId}/grants`, { body: { grants: ['calls:supervise'] } })
    expect(granted.status, JSON.stringify(granted.body)).toBe(200)
    expect(granted.body.member).toMatchObject({ role: 'member', grants: ['calls:supervise'] })
    const noted = await act(live.id, { type: 'note', text: NOTE }, memberApiKey)
    expect(noted.status, JSON.stringify(noted.body)).toBe(200)
    expect(noted.body.action).toMatchObject({ type: 'note', text: NOTE, result: 'done' })
    const said = await act(live.id, { type: 'say', text: SAID })
    expect(said.status, JSON.stringify(said.body)).toBe(200)
    // muted before the caller asks: the agent's answer is made and written, but not sent
    expect((await act(live.id, { type: 'mute_agent' })).status).toBe(200)
    expect((await act(live.id, { type: 'say', text: SAID })).body.error?.message).toContain('muted')

    // the caller's question: the LLM request that answers it carries the note
    await until(() => llm.requests.some((r) => r.path.includes('chat') && JSON.stringify(r.body.messages).includes('opening hours')), 30_000, 'the LLM request')
    const request = llm.requests.find((r) => r.path.includes('chat') && JSON.stringify(r.body.messages).includes('opening hours'))!
    const guidance = (request.body.messages as { role: string; content: string }[]).filter((m) => m.content?.includes(NOTE))
    expect(guidance.map((m) => m.role)).toEqual(['system'])

    const answered = () => t.appliance.calls.liveView(live.id)?.transcript.some((i) => i.role === 'agent' && i.text === REPLY) ?? false
    await until(answered, 30_000, 'the muted answer in the transcript')
    for (const type of ['unmute_agent', 'hold', 'resume']) {
      const r = await act(live.id, { type })
      expect(r.status, `${type}: ${JSON.stringify(r.body)}`).toBe(200)
    }
    // resume twice: refused, and audited as refused
    const again = await act(live.id, { type: 'resume' })
    expect(again.status).toBe(409)
    expect(again.body.error.details.action).toMatchObject({ type: 'resume', result: 'refused' })

    expect((await act(live.id, { type: 'hangup' })).status).toBe(200)
    const call = await waitForCall(t, (c) => c.id === live.id && c.status === 'ended', 20_000)
    expect(call).toMatchObject({ outcome: 'completed', endReason: 'supervisor_hangup' })
    expect((await act(live.id, { type: 'say', text: SAID })).status).toBe(409)

    // the supervisor's line is in the transcript as the agent's; the note never is
    const lines = call.transcript.map((i: any) => [i.role, i.text])
    expect(lines).toContainEqual(['agent', SAID])
    expect(JSON.stringify(call.transcript)).not.toContain('priority customer')

    expect(lines).toContainEqual(['agent', REPLY])

    // heard on the caller's side: the agent channel of the recording and the phone's own audio carry
    // the supervisor's line, before the caller's question; after it (the muted answer) nothing
    const rec = readStereoWav(`${t.dataDir}/recordings/${call.id}.wav`)
    const window = rec.sampleRate / 10
    const callerDb = loudness(rec.left, window)
    const asked = callerDb.findIndex((db) => db > -35)
    expect(asked).toBeGreaterThan(0)
    expect(loudWindows(rec.right.subarray(0, asked * window), window, -35)).toBeGreaterThan(8)
    expect(loudWindows(rec.right.subarray(asked * window), window, -35)).toBe(0)
    const heard = parseWav(readFileSync(phone.heardPath()))
    expect(loudWindows(heard.samples, heard.sampleRate / 10, -35)).toBeGreaterThan(8)

    const audit = (await t.api('GET', `/api/calls/${live.id}/actions`)).body.actions as any[]
    expect(audit.map((a) => [a.type, a.result])).toEqual([
      ['note', 'done'], ['say', 'done'], ['mute_agent', 'done'], ['say', 'refused'], ['unmute_agent', 'done'], ['hold', 'done'], ['resume', 'done'], ['resume', 'refused'], ['hangup', 'done'],
    ])
    expect(audit.every((a) => a.actor.apiKeyId && a.actor.userId && a.createdAt)).toBe(true)
    expect(audit[0].actor.userId).toBe(memberUserId)
    expect(audit[1].actor.userId).not.toBe(memberUserId)

    const events = () => rx.received.map((r) => JSON.parse(r.body)).filter((b) => b.type === 'call.action')
    await until(() => events().length === audit.length, 15_000, 'every call.action webhook')
    expect(events().map((e) => e.data.action.id).sort()).toEqual(audit.map((a) => a.id).sort())
    expect(events().every((e) => e.data.callId === live.id)).toBe(true)
  } finally {
    await phone.stop()
  }
}, 90_000)

test("a supervisor transfers a live call (cold): the caller's phone takes the REFER, the call ends transferred, and the action is audited with its target", async () => {
  const desk = await setupCallTarget(t, { agent: { name: 'Desk line', webhookUrl: rx.url } })
  llm.chat.push({ text: '', usage: { prompt: 20, completion: 1 } })
  const scenario = scenarioFrom(join(FIXTURES, 'uac-dtmf-refer.xml'), { PCAP_DIR: SIPP_PCAP_DIR, DIGIT: '1', REFER_TO: DESK })
  const caller = sipp(['-sf', scenario, `127.0.0.1:${t.appliance.sip.udp}`, '-s', desk.e164.slice(1), '-m', '1', '-i', '127.0.0.1', '-p', String(await freePort()), '-mp', String(await freePort())], 40)
  const live = await waitForCall(t, (c) => c.status === 'in_progress' && c.to === desk.e164, 20_000)
  // the phone's key went out (the agent's turn on it reached the LLM): the phone now waits for the REFER
  await until(() => llm.requests.some((r) => JSON.stringify(r.body.messages ?? []).includes('[DTMF] 1')), 20_000, 'the key press')
  expect((await act(live.id, { type: 'transfer', target: 'the front desk' })).status).toBe(422)
  expect((await act(live.id, { type: 'transfer' })).status).toBe(422)
  const moved = await act(live.id, { type: 'transfer', target: DESK })
  expect(moved.status, JSON.stringify(moved.body)).toBe(200)
  expect(moved.body.action).toMatchObject({ type: 'transfer', target: DESK, result: 'done' })
  const run = await caller.exited
  expect(run.code, run.stderr + run.stdout.slice(-1500)).toBe(0)
  const call = await waitForCall(t, (c) => c.id === live.id && c.status === 'ended', 20_000)
  expect(call).toMatchObject({ outcome: 'transferred', endReason: 'transferred' })
  const audit = (await t.api('GET', `/api/calls/${live.id}/actions`)).body.actions as any[]
  expect(audit.map((a) => [a.type, a.target, a.result])).toEqual([['transfer', DESK, 'done']])
  await until(() => rx.received.some((r) => JSON.parse(r.body).data?.action?.id === audit[0].id), 15_000, 'the transfer\'s call.action')
}, 60_000)

test('an action on a call carried by another node is 409 naming that node, and nothing is audited', async () => {
  const db = t.appliance.database.db
  const id = await seedCall(db, { workspaceId: t.workspaceId, status: 'in_progress' })
  await db.updateTable('calls').set({ node_id: 'node-b' }).where('id', '=', id).execute()
  const r = await act(id, { type: 'hangup' })
  expect(r.status).toBe(409)
  expect(r.body.error).toMatchObject({ code: 'conflict', details: { nodeId: 'node-b' } })
  expect(r.body.error.message).toContain('node-b')
  expect((await t.api('GET', `/api/calls/${id}/actions`)).body.actions).toEqual([])
})
