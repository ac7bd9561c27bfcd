// Issue 23, "a call must never be silent": an answered call in which the agent sent no audio at
// all is logged as a warning when it ends and counted in /metrics; a call that heard the agent is
// not. A caller that speaks over the welcome is logged as a barge-in (see the session's report).
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { join } from 'node:path'
import parsePrometheusTextFormat from 'parse-prometheus-text-format'
import { startTestAppliance, type TestAppliance } from '../../helpers/appliance.ts'
import { setupCallTarget, waitForCall } from '../../helpers/calls.ts'
import { SIPP_PCAP_DIR } from '../../helpers/pcap.ts'
import { freePort, scenarioFrom, sipp } from '../../helpers/sipp.ts'
import { until } from '../../helpers/until.ts'

const FIXTURES = join(import.meta.dir, '../../fixtures/sip')
let t: TestAppliance
const lines: any[] = []

beforeAll(async () => {
  t = await startTestAppliance({ LOG_LEVEL: 'info' }, undefined, { write: (line) => void lines.push(JSON.parse(line)) })
})

afterAll(async () => {
  await t?.stop()
})

async function silentCalls(): Promise<number> {
  const text = await (await fetch(`${t.url}/metrics`)).text()
  const family = (parsePrometheusTextFormat(text) as any[]).find((f: any) => f.name === 'voice_agent_calls_agent_silent_total')
  return (family?.metrics ?? []).reduce((n: number, m: any) => n + Number(m.value), 0)
}

/** SIPp calls, presses a key after `ms` and hangs up. */
async function callFor(e164: string, ms: number): Promise<void> {
  const scenario = scenarioFrom(join(FIXTURES, 'uac-dtmf.xml'), { PCAP: join(SIPP_PCAP_DIR, 'dtmf_2833_5.pcap'), KEY_AFTER_MS: String(ms) })
  const run = await sipp(['-sf', scenario, `127.0.0.1:${t.appliance.sip.udp}`, '-s', e164.slice(1), '-m', '1', '-i', '127.0.0.1', '-p', String(await freePort()), '-mp', String(await freePort())], 30).exited
  expect(run.code, run.stderr + run.stdout.slice(-1000)).toBe(0)
}

test('a call in which the agent never made a sound logs a warning and is counted in /metrics; a heard call is not', async () => {
  expect(await silentCalls()).toBe(0)
  // the agent waits 10 s before its welcome; the caller hangs up after 1 s: it heard nothing
  const mute = await setupCallTarget(t, { agent: { welcome: { mode: 'agent_speaks_first', message: 'Hello.', delayMs: 10_000 } } })
  await callFor(mute.e164, 1000)
  const silent = await waitForCall(t, (c) => c.status === 'ended' && c.to === mute.e164)
  await until(() => lines.some((l) => l.event === 'call_agent_silent'), 10_000, 'the silent-call warning')
  const warning = lines.find((l) => l.event === 'call_agent_silent')
  expect(warning).toMatchObject({ level: 40, callId: silent.id, msg: 'the agent said nothing the caller could hear in this call' })
  expect(lines.find((l) => l.event === 'call_welcome' && l.callId === silent.id)).toMatchObject({ level: 40, welcome: 'not_spoken' })
  expect(await silentCalls()).toBe(1)

  // the same welcome at once, and the caller stays 4 s: the agent is heard, nothing is counted
  const heard = await setupCallTarget(t, { agent: { welcome: { mode: 'agent_speaks_first', message: 'Hello.' } } })
  await callFor(heard.e164, 4000)
  const call = await waitForCall(t, (c) => c.status === 'ended' && c.to === heard.e164)
  await until(() => lines.some((l) => l.event === 'call_end' && l.callId === call.id), 10_000, 'the call end line')
  expect(lines.filter((l) => l.event === 'call_agent_silent' && l.callId === call.id)).toEqual([])
  expect(call.metrics.ttsDuration).toBeGreaterThan(0)
  expect(await silentCalls()).toBe(1)
}, 60_000)
