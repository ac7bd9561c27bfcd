// The start-up warning naming the models calls may run here that have no price: the default
// language model and those agents name, the speech recognition, the voices agents may speak
// with. A call using one records it in cost.unpriced rather than a cost that leaves it out.
import { agentLlmModels } from '../../features/agents/index.ts'
import type { Db } from '../../platform/db/index.ts'
import type { Logger } from '../../platform/log.ts'
import type { VoiceEngines } from '../../realtime/voice/index.ts'
import { llmRoute, providerOfEngine, unpricedModels } from '../../realtime/voice/registry/index.ts'
import type { PriceTable } from '../../realtime/voice/turn/index.ts'

/** The warning for `voice` and the llmModels agents name, or undefined when all of them are priced. */
export function unpricedWarning(prices: PriceTable, voice: Pick<VoiceEngines, 'llm' | 'stt' | 'serving'>, agentModels: readonly string[]): string | undefined {
  const routes = agentModels.map((model) => llmRoute(model, voice.serving))
  const stt = voice.stt && providerOfEngine('stt', voice.stt.provider)?.id
  const unpriced = unpricedModels(prices, {
    llm: [...(voice.llm ? [voice.llm.model] : []), ...routes.flatMap((r) => (r.ok ? [r.model] : []))],
    stt: stt ? [stt] : [],
    tts: voice.serving.voice,
  })
  if (!unpriced.length) return undefined
  return `no price for ${unpriced.join(', ')}: calls leave them out of their cost and name them in cost.unpriced; give them one in VOICE_PRICE_TABLE`
}

/** Logs the warning (at warn, with the agents' models) and returns it for /ready's warnings. */
export async function warnUnpriced(prices: PriceTable, voice: VoiceEngines, db: Db, log: Pick<Logger, 'warn'>): Promise<string[]> {
  const warning = unpricedWarning(prices, voice, await agentLlmModels(db))
  if (!warning) return []
  log.warn(warning)
  return [warning]
}
