// SIPp's recorded human speech: the caller channel of its uac_pcap scenario (g711a.pcap, PCMA,
// about 7 s), decoded to 8 kHz PCM. It is phone audio already, so it is played as it is.
import { join } from 'node:path'
import { decodeG711 } from '../../../src/realtime/media/codec/index.ts'
import { readPcapUdp, SIPP_PCAP_DIR } from '../../../test/helpers/pcap.ts'

/**
 * What the person says. Not known: SIPp ships no transcript, none was found, and no recogniser
 * better than the one under test is on this machine to transcribe it (it must be done by ear).
 * While it is null the clip is measured for barge-in and its recognised words are printed, but
 * it has no word error rate.
 */
export const HUMAN_TRANSCRIPT: string | null = null

export function humanSpeech(): Int16Array {
  const chunks = readPcapUdp(join(SIPP_PCAP_DIR, 'g711a.pcap'))
    .map((p) => p.payload)
    .filter((b) => b.length > 12 && (b[1]! & 0x7f) === 8)
    .map((b) => decodeG711('alaw', b.subarray(12 + 4 * (b[0]! & 0x0f))))
  const out = new Int16Array(chunks.reduce((n, c) => n + c.length, 0))
  let at = 0
  for (const c of chunks) (out.set(c, at), (at += c.length))
  return out
}
