import type { CallEngines } from '../call-engines.ts'
import type { VoiceEngines } from '../engines.ts'
import { providerOfEngine } from '../registry/index.ts'
import { callCost, type CallCost, type CallUsage, type PriceTable } from '../turn/cost.ts'
import { type SessionOptions, VoiceSession } from './session.ts'
import type { AgentProfile, Brain, SessionHooks, SessionReport } from './types.ts'

/** A session for one call: the appliance's VAD and tunables, the call's own voice and STT. */
export function sessionFromEngines(
  engines: VoiceEngines,
  call: { agent: AgentProfile; hooks: SessionHooks; sampleRate: number; lineRateHz?: number; now: SessionOptions['now']; brain: Brain; engines: Pick<CallEngines, 'tts' | 'stt'> },
): VoiceSession {
  return new VoiceSession({
    engines: { vad: engines.vad, stt: call.engines.stt, tts: call.engines.tts },
    brain: call.brain,
    settings: { vad: engines.settings.vad, endpointing: engines.settings.endpointing, bargeIn: engines.settings.bargeIn },
    agent: call.agent,
    hooks: call.hooks,
    sampleRate: call.sampleRate,
    lineRateHz: call.lineRateHz,
    now: call.now,
  })
}

/** What the call cost, per component, from its report: its engines' usage priced by their providers' ids. */
export function sessionCost(report: SessionReport, prices: PriceTable, direction: CallUsage['direction']): CallCost {
  const idOf = (kind: 'tts' | 'stt', engineName: string) => providerOfEngine(kind, engineName)?.id ?? engineName
  return callCost(prices, {
    direction,
    durationMs: report.durationMs,
    llm: report.usage.llm,
    tts: report.usage.tts.map((u) => ({ ...u, provider: idOf('tts', u.provider) })),
    stt: report.usage.stt.map((u) => ({ ...u, provider: idOf('stt', u.provider) })),
  })
}
