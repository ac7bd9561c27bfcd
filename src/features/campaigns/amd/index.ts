import { type AnswerGate, type AnsweredBy, ledger } from '../../calls/index.ts'
import type { Db } from '../../../platform/db/index.ts'
import type { VoiceEngines } from '../../../realtime/voice/index.ts'
import type { JobSettings } from '../campaigns.model.ts'
import { amdGate } from './gate.ts'

export { AMD_DEFAULTS, AmdClassifier, classify, type AmdDecision } from './classifier.ts'

/** The answer gate of each campaign attempt whose job turned detection on; it stores the result on the call. */
export function amdGateFactory(db: Db, voice: Pick<VoiceEngines, 'tts'>) {
  return (attempt: { callId: string; settings: JobSettings; variables: Record<string, string> }): AnswerGate | undefined => {
    const amd = attempt.settings.answeringMachineDetection
    if (!amd.enabled) return undefined
    return amdGate({
      settings: amd,
      variables: attempt.variables,
      tts: () => voice.tts(16000),
      record: async (answeredBy: AnsweredBy) => void (await ledger.recordAnsweredBy(db, attempt.callId, answeredBy)),
    })
  }
}
