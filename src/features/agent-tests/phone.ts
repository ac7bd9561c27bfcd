// The built-in test phone: a SIP call from the appliance's own user agent to itself over
// loopback, with its own RTP media, that plays a scripted caller to the agent. It listens to
// the agent's audio only to know when the agent speaks and when it has finished.
import { CallMedia, type BoundPorts, type MediaClock } from '../../realtime/media/index.ts'
import { acceptAnswer, createMediaOffer, type LocalMediaOptions } from '../../realtime/telephony/sdp/index.ts'
import type { OutboundCall, PlaceCallOptions } from '../../realtime/telephony/sip/index.ts'
import type { TestLine, TestLines } from '../calls/index.ts'
import type { CallerVoice, Turn } from './agent-tests.model.ts'
import { speakAsCaller } from './caller-voice.ts'
import { AgentSpeech } from './listen.ts'

export interface PhoneDeps {
  placeCall(opts: PlaceCallOptions): Promise<OutboundCall>
  /** The appliance's SIP UDP port on 127.0.0.1. */
  sipPort: number
  media: { allocatePorts(): Promise<BoundPorts>; clock: MediaClock; sdpOptions(address: string, ports: Pick<BoundPorts, 'port'>): LocalMediaOptions }
  lines: TestLines
  /** How long the agent may stay quiet before the caller goes on anyway, and how long a call may last. */
  limits?: { turnWaitMs?: number; callMs?: number }
}

export interface PhoneCall {
  /** The SIP Call-ID, shared by both legs: the agent's call record holds it. */
  sipCallId: string
  answered: boolean
  /** agent: the agent hung up; phone: the script ended and the phone hung up; failed: never answered. */
  endedBy: 'agent' | 'phone' | 'failed'
  reason?: string
}

const QUIET_MS = 1500

export async function placeTestCall(d: PhoneDeps, line: TestLine, caller: { turns: Turn[]; voice: CallerVoice }): Promise<PhoneCall> {
  const turnWaitMs = d.limits?.turnWaitMs ?? 20_000
  const callMs = d.limits?.callMs ?? 180_000
  // every line is spoken before the call, so the script keeps its pace on a busy machine
  const lines = new Map<number, Int16Array>()
  for (const [i, t] of caller.turns.entries()) if (t.type === 'say' || t.type === 'interrupt') lines.set(i, await speakAsCaller(caller.voice, t.text))
  const dial = d.lines.add(line)
  const ports = await d.media.allocatePorts()
  let media: CallMedia | undefined
  try {
    const local = d.media.sdpOptions('127.0.0.1', ports)
    const offer = createMediaOffer(local)
    const call = await d.placeCall({ target: `sip:${dial.user}@127.0.0.1:${d.sipPort}`, from: { user: 'agent-test', displayName: 'Agent test' }, sdp: offer.sdp })
    const ended = new Promise<string>((resolve) => call.on('ended', (info) => resolve(info.reason)))
    const answered = await Promise.race([new Promise<string>((resolve) => call.on('answered', resolve)), ended.then(() => undefined)])
    if (answered === undefined) return { sipCallId: call.callId, answered: false, endedBy: 'failed', reason: `the call was not answered (${await ended})` }
    const speech = new AgentSpeech(QUIET_MS)
    media = new CallMedia({ ports, clock: d.media.clock, media: acceptAnswer(answered, local, offer), onAudio: (f) => speech.frame(f) })
    let over = false
    void ended.then(() => ((over = true), speech.stop()))
    const cut = setTimeout(() => call.hangup(), callMs)
    try {
      for (const [i, turn] of caller.turns.entries()) {
        if (over) break
        if (turn.type === 'silence') {
          await Promise.race([new Promise((r) => setTimeout(r, turn.ms)), ended])
          continue
        }
        if (turn.type === 'interrupt') {
          await speech.started(turnWaitMs)
          await Promise.race([new Promise((r) => setTimeout(r, turn.afterMs ?? 500)), ended])
        } else await speech.finished(turnWaitMs)
        if (over) break
        if (turn.type === 'keys') media.sendDtmf(turn.digits)
        else await Promise.race([media.play(lines.get(i)!).done, ended])
        speech.next()
      }
      // the script is over: the agent ends the call, or the phone does once the agent is done
      if (!over) await Promise.race([speech.finished(turnWaitMs).then(() => speech.finished(turnWaitMs)), ended])
      const endedBy = over ? 'agent' : 'phone'
      if (!over) call.hangup()
      return { sipCallId: call.callId, answered: true, endedBy }
    } finally {
      clearTimeout(cut)
    }
  } finally {
    dial.close()
    if (media) await media.close().catch(() => {})
    else ports.release()
  }
}
