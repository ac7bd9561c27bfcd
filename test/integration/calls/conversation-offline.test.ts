// The offline ear for real: baresip calls over Opus (16 kHz speech inside), Silero hears the
// caller, pocketsphinx transcribes it on this machine, and the LLM (a local fake) gets its words.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { startTestAppliance, type TestAppliance } from '../../helpers/appliance.ts'
import { testNeedingPackage } from '../../helpers/debian.ts'
import { dialWithBaresip, opusMicrophone } from '../../helpers/baresip.ts'
import { setupCallTarget, waitForCall, type CallSetup } from '../../helpers/calls.ts'
import { fliteSpeech, silence } from '../../helpers/speech.ts'
import { startFakeOpenAi, type FakeOpenAi } from '../../fakes/openai.ts'
import { concatFrames } from '../../../src/realtime/voice/audio.ts'
import { PocketsphinxStt } from '../../../src/realtime/voice/stt/index.ts'

const installed = PocketsphinxStt.available()
let t: TestAppliance
let llm: FakeOpenAi
let target: CallSetup

beforeAll(async () => {
  if (!installed) return
  llm = startFakeOpenAi()
  t = await startTestAppliance({ VAD_ENGINE: 'silero', STT_PROVIDER: 'pocketsphinx', LLM_PROVIDER: 'openai', LLM_BASE_URL: llm.url, LLM_API_KEY: 'test' })
  target = await setupCallTarget(t, { agent: { welcome: { mode: 'user_speaks_first' } } })
})

afterAll(async () => {
  await t?.stop()
  llm?.stop()
})

testNeedingPackage('pocketsphinx-en-us', installed)('pocketsphinx transcribes the caller over Opus and the agent answers what was said', async () => {
  llm.chat.push({ text: 'We are open from nine to five. Goodbye!', toolCalls: [{ name: 'end_call', arguments: '{}' }] })
  const speech = concatFrames([silence(1000, 16000), fliteSpeech('what are your opening hours'), silence(9000, 16000)])
  const phone = dialWithBaresip(`sip:${target.e164.slice(1)}@127.0.0.1:${t.appliance.sip.udp}`, opusMicrophone(speech.samples, 16000), { codecs: ['opus.so'], timeoutSec: 30 })
  try {
    expect(await phone.saw('session closed'), phone.output()).toBe(true)
    expect(phone.output()).toContain('opus')
    const call = await waitForCall(t, (c) => c.status === 'ended' && c.to === target.e164)
    expect(call).toMatchObject({ outcome: 'completed', endReason: 'agent_hangup' })
    const user = call.transcript.filter((i: any) => i.role === 'user').map((i: any) => i.text)
    expect(user.length).toBe(1)
    expect(user[0]).toContain('opening hours')
    const asked = llm.requests.find((r) => r.path === '/v1/chat/completions')!.body.messages.at(-1)
    expect(asked).toMatchObject({ role: 'user', content: user[0] })
    expect(call.metrics.sttProvider).toBe('pocketsphinx')
    expect(call.metrics.sttDuration).toBeGreaterThan(1)
  } finally {
    await phone.stop()
  }
}, 60_000)
