// One SIPp call to an appliance: it connects, sends its G.711 RTP from SIPp's own pcap, and hangs up.
import { join } from 'node:path'
import { SIPP_PCAP_DIR } from './pcap.ts'
import { freePort, scenarioFrom, sipp, type SippRun } from './sipp.ts'

const FIXTURES = join(import.meta.dir, '../fixtures/sip')

/** Calls `e164` at 127.0.0.1:`sipPort`; a key (RFC 4733) `keyAfterMs` after the answer, then BYE. */
export async function sippKeyCall(sipPort: number, e164: string, keyAfterMs: number): Promise<SippRun> {
  const scenario = scenarioFrom(join(FIXTURES, 'uac-dtmf.xml'), { PCAP: join(SIPP_PCAP_DIR, 'dtmf_2833_5.pcap'), KEY_AFTER_MS: String(keyAfterMs) })
  const args = ['-sf', scenario, `127.0.0.1:${sipPort}`, '-s', e164.replace(/^\+/, ''), '-m', '1', '-i', '127.0.0.1', '-p', String(await freePort()), '-mp', String(await freePort())]
  return sipp(args, 60).exited
}
