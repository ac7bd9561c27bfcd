// The answering-machine hook of a campaign call: listens to the first seconds after answer,
// stores what answered on the call row, and on a machine hangs up or waits for the beep and
// leaves the job's voicemail message.
import { fillTemplate } from '../../agents/index.ts'
import type { AnswerGate, AnswerTap, AnsweredBy } from '../../calls/index.ts'
import { tts as ttsNs } from '../../../realtime/voice/index.ts'
import type { JobSettings } from '../campaigns.model.ts'
import { AMD_DEFAULTS, AmdClassifier, type AmdDecision } from './classifier.ts'

/** After a machine's greeting with no beep, this much silence is taken as the moment to speak. */
const PAUSE_BEFORE_MESSAGE_MS = 1500
const MAX_WAIT_FOR_BEEP_MS = 20_000

export interface GateDeps {
  settings: JobSettings['answeringMachineDetection']
  variables: Record<string, string>
  tts(): ttsNs.Tts
  record(answeredBy: AnsweredBy): Promise<void>
}

export function amdGate(d: GateDeps): AnswerGate {
  return async (tap) => {
    const c = new AmdClassifier()
    const decision = await listenUntil<AmdDecision>(tap, AMD_DEFAULTS.totalMs + 1000, (frame) => c.push(frame))
    const answeredBy = decision?.answeredBy ?? 'unknown'
    await d.record(answeredBy)
    if (answeredBy !== 'machine') return 'converse'
    if (d.settings.action === 'hangup') return 'hangup'
    const ready = () => c.beepEndedAtMs !== undefined || (c.silenceMs >= PAUSE_BEFORE_MESSAGE_MS && c.decision?.reason !== 'beep')
    if (!ready()) await listenUntil(tap, MAX_WAIT_FOR_BEEP_MS, (frame) => (c.push(frame), ready() || undefined))
    if (tap.ended) return 'hangup'
    await tap.play(await ttsNs.synthesizeAll(d.tts(), fillTemplate(d.settings.voicemailMessage, d.variables)))
    return 'hangup'
  }
}

/** Feeds the callee's audio to `step` until it returns a value, the callee hangs up, or `maxMs` passes. */
function listenUntil<T>(tap: AnswerTap, maxMs: number, step: (frame: Int16Array) => T | undefined): Promise<T | undefined> {
  return new Promise((resolve) => {
    const done = (v: T | undefined) => {
      clearTimeout(timer)
      clearInterval(hungUp)
      tap.listen(undefined)
      resolve(v)
    }
    const timer = setTimeout(() => done(undefined), maxMs)
    const hungUp = setInterval(() => tap.ended && done(undefined), 100)
    tap.listen((frame) => {
      const v = step(frame)
      if (v !== undefined) done(v)
    })
  })
}

