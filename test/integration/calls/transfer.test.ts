// transfer_call from the LLM: the caller's phone refuses REFER, so the appliance calls the
// destination itself and bridges the two calls; the caller's voice reaches the destination.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { startTestAppliance, type TestAppliance } from '../../helpers/appliance.ts'
import { setupCallTarget, waitForCall } from '../../helpers/calls.ts'
import { readStereoWav } from '../../helpers/media-call.ts'
import { SIPP_PCAP_DIR } from '../../helpers/pcap.ts'
import { freePort, scenarioFrom, sipp } from '../../helpers/sipp.ts'
import { startFakeOpenAi, type FakeOpenAi } from '../../fakes/openai.ts'
import { loudWindows } from '../../helpers/speech.ts'

const FIXTURES = join(import.meta.dir, '../../fixtures/sip')

let t: TestAppliance
let llm: FakeOpenAi

beforeAll(async () => {
  llm = startFakeOpenAi()
  t = await startTestAppliance({ LLM_PROVIDER: 'openai', LLM_BASE_URL: llm.url, LLM_API_KEY: 'test' })
})

afterAll(async () => {
  await t?.stop()
  llm?.stop()
})

test('a caller whose phone refuses REFER is bridged by the appliance to the transfer destination, and their audio reaches it', async () => {
  const deskPort = await freePort()
  const desk = sipp(['-sn', 'uas', '-rtp_echo', '-i', '127.0.0.1', '-p', String(deskPort), '-mp', String(await freePort()), '-m', '1'], 40)
  const target = await setupCallTarget(t, {
    agent: {
      welcome: { mode: 'user_speaks_first' },
      enabledTools: ['transfer_call'],
      toolConfigs: { transfer_call: { destinations: [{ number: `sip:desk@127.0.0.1:${deskPort}`, description: 'the front desk' }] } },
    },
  })
  llm.chat.push({ text: 'Connecting you to the front desk.', toolCalls: [{ name: 'transfer_call', arguments: '{"destination":0}' }] })

  const scenario = scenarioFrom(join(FIXTURES, 'uac-dtmf-refer-refused.xml'), { PCAP_DIR: SIPP_PCAP_DIR, DIGIT: '1' })
  const caller = await sipp(['-sf', scenario, `127.0.0.1:${t.appliance.sip.udp}`, '-s', target.e164.slice(1), '-m', '1', '-i', '127.0.0.1', '-p', String(await freePort()), '-mp', String(await freePort())], 40).exited
  expect(caller.code, caller.stderr + caller.stdout.slice(-1500)).toBe(0)
  const deskRun = await desk.exited
  expect(deskRun.code, deskRun.stderr + deskRun.stdout.slice(-1500)).toBe(0)

  const call = await waitForCall(t, (c) => c.status === 'ended' && c.to === target.e164)
  expect(call).toMatchObject({ outcome: 'transferred', endReason: 'transferred' })
  expect(call.transcript.map((i: any) => [i.role, i.text])).toEqual([
    ['user', '[DTMF] 1'],
    ['agent', 'Connecting you to the front desk.'],
  ])
  const asked = llm.requests.find((r) => r.path === '/v1/chat/completions')!.body
  expect(asked.messages.at(-1)).toMatchObject({ role: 'user', content: '[DTMF] 1' })
  expect(asked.tools.map((x: any) => x.function.name)).toContain('transfer_call')

  // the destination echoed what it got through the bridge: the caller's speech
  const legPath = `${t.dataDir}/recordings/${call.id}-transfer.wav`
  expect(existsSync(legPath)).toBe(true)
  const { left } = readStereoWav(legPath)
  expect(loudWindows(left, 1600, -35)).toBeGreaterThan(10)
}, 60_000)
