// The README quickstart runs as written: its `sh quickstart` blocks (and, with an LLM, the
// `sh quickstart-llm` ones) are extracted and executed by bash against a started appliance,
// with only the variables they read (PORT, SIP_PORT, DATA_DIR, SIPP_PORT) set. The docs cannot rot.
import { afterAll, expect, test } from 'bun:test'
import { mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { startFakeOpenAi, type FakeOpenAi } from '../fakes/openai.ts'
import { startTestAppliance, type TestAppliance } from '../helpers/appliance.ts'
import { waitForCalls } from '../helpers/calls.ts'
import { freePort } from '../helpers/sipp.ts'

const README = readFileSync(resolve(import.meta.dir, '../../README.md'), 'utf8')

/** The bodies of the fenced blocks whose info string is exactly `sh <tag>`, in order. */
function blocks(tag: string): string[] {
  return [...README.matchAll(/^```sh ([\w-]+)\n([\s\S]*?)^```$/gm)].filter((m) => m[1] === tag).map((m) => m[2]!)
}

/** Runs the blocks with bash, the variables they read set to this test's appliance; in a folder of its own. */
async function runScript(t: TestAppliance, script: string): Promise<{ code: number; out: string; cwd: string }> {
  const cwd = mkdtempSync(join(tmpdir(), 'quickstart-'))
  const env = { ...process.env, PORT: new URL(t.url).port, SIP_PORT: String(t.appliance.sip.udp), DATA_DIR: t.dataDir, SIPP_PORT: String(await freePort()) }
  // SIPp's RTP port too, or parallel runs would share its default
  const text = script.replaceAll('-p $SIPP_PORT', `-p $SIPP_PORT -mp ${await freePort()}`)
  const proc = Bun.spawn(['bash', '-euo', 'pipefail', '-c', text], { cwd, env, stdout: 'pipe', stderr: 'pipe' })
  const [out, err] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text()])
  return { code: await proc.exited, out: out + err, cwd }
}

const started: TestAppliance[] = []
let llm: FakeOpenAi | undefined
afterAll(async () => {
  for (const t of started) await t.stop()
  llm?.stop()
})

test('the README has quickstart blocks for the offline agent and for the LLM', () => {
  expect(blocks('quickstart').length).toBeGreaterThanOrEqual(2)
  expect(blocks('quickstart-llm').length).toBeGreaterThanOrEqual(1)
})

test("offline, the quickstart's commands set up the template agent and a number, and SIPp's call is answered by the workflow", async () => {
  const t = await startTestAppliance({ LLM_PROVIDER: 'auto' })
  started.push(t)
  const r = await runScript(t, blocks('quickstart').join('\n'))
  expect(r.code, r.out.slice(-3000)).toBe(0)
  const calls = await waitForCalls(t, (cs) => cs.length === 1 && cs[0].status === 'ended')
  expect(calls[0]).toMatchObject({ status: 'ended', to: '+14155550100', type: 'inbound', endReason: 'caller_hangup' })
  // the recording saved with curl -o is the call's WAV
  expect(readFileSync(join(r.cwd, 'call.wav')).subarray(0, 4).toString()).toBe('RIFF')
  expect(calls[0].transcript[0]).toMatchObject({ role: 'agent' })
  expect(calls[0].transcript[0].text).toStartWith('Hello, thank you for calling.')
  const agent = (await t.api('GET', `/api/agents/${calls[0].agentId}`)).body.agent
  expect(agent.readiness).toEqual({ canConverse: true, brain: 'workflow', problems: [] })
}, 60_000)

test('with an LLM, the same commands and then the LLM ones give a second call answered by the prompt agent', async () => {
  llm = startFakeOpenAi()
  const t = await startTestAppliance({ LLM_PROVIDER: 'auto', LLM_BASE_URL: llm.url, LLM_API_KEY: 'test-key', LLM_MODEL: 'llama3.2' })
  started.push(t)
  const r = await runScript(t, [...blocks('quickstart'), ...blocks('quickstart-llm')].join('\n'))
  expect(r.code, r.out.slice(-3000)).toBe(0)
  const calls = await waitForCalls(t, (cs) => cs.length === 2 && cs.every((c) => c.status === 'ended'))
  const chat = calls.find((c: any) => c.agentName === 'Chat')
  expect(chat.transcript[0]).toMatchObject({ role: 'agent', text: 'Hello, Acme here.' })
  const agent = (await t.api('GET', `/api/agents/${chat.agentId}`)).body.agent
  expect(agent.llmModel).toBe('openai-compatible/llama3.2')
  expect(agent.readiness.brain).toBe('llm')
}, 60_000)
