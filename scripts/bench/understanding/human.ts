// SIPp's recorded human speech: the caller channel of its uac_pcap scenario (g711a.pcap, PCMA,
// about 7 s), decoded to 8 kHz PCM. It is phone audio already, so it is played as it is.
import { sippHumanSpeech } from '../../../test/helpers/pcap.ts'

/**
 * What the person says. Not known: SIPp ships no transcript, none was found, and no recogniser
 * better than the one under test is on this machine to transcribe it (it must be done by ear).
 * While it is null the clip is measured for barge-in and its recognised words are printed, but
 * it has no word error rate.
 */
export const HUMAN_TRANSCRIPT: string | null = null

export const humanSpeech = sippHumanSpeech
