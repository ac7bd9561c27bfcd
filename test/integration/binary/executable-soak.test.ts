// Issue 23, "a call must never be silent": fresh starts of the built executable, the extraction
// cache empty for half of them and warm for the others, one SIPp uac_pcap call each (the caller
// speaks about 1 s in) to a workflow agent that speaks first and has no LLM. The agent is heard
// in every call, and no start logs call_agent_silent or counts it in /metrics. This runs 4 starts;
// `npm run soak:executable` runs the 50 of the issue (scripts/soak-executable.ts).
import { expect } from 'bun:test'
import { testNeedingPackage } from '../../helpers/debian.ts'
import { soak } from '../../helpers/executable-soak.ts'
import { PocketsphinxStt } from '../../../src/realtime/voice/stt/index.ts'

const sipp = Bun.spawnSync(['which', 'sipp']).exitCode === 0
const test = testNeedingPackage('sip-tester', sipp)
const env: Record<string, string> = PocketsphinxStt.available() ? { STT_PROVIDER: 'pocketsphinx' } : {}

test('fresh starts of the executable, on an empty and on a warm extraction cache, each take a call in which the agent is audible', async () => {
  const results = await soak(4, () => {}, env)
  expect(results.map((r) => r.cold)).toEqual([true, false, true, false])
  for (const r of results) {
    const about = JSON.stringify(r)
    expect(r.sippCode, about).toBe(0)
    expect(r.outcome, about).toBe('completed')
    // seconds of the agent's speech in its channel of the recording, not a click
    expect(r.agentLoudWindows, about).toBeGreaterThanOrEqual(5)
    expect(r.ttsDuration, about).toBeGreaterThan(0)
    // a welcome cut by the caller is a barge-in, never silence
    expect(['spoken', 'barged_in'], about).toContain(r.welcome)
    expect(r.silentLines, about).toBe(0)
    expect(r.silentCounter, about).toBe(0)
  }
}, 400_000)
