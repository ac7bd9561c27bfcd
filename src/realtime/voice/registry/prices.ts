// What calls cost on this appliance: the catalogue's list prices (each language-model family's in
// catalog.ts, each speech provider's on its entry) for the models this configuration runs, with
// the operator's VOICE_PRICE_TABLE over them; and which of the models calls may run have none.
// Pure.
import { type Config, ConfigError } from '../../../platform/config/index.ts'
import { type LlmPrice, type PriceTable, parsePriceTable, type SpeechPrice } from '../turn/cost.ts'
import { LLM_PROVIDERS } from './catalog.ts'
import type { Pricing } from './entry.ts'
import { providersOf } from './list.ts'

/** The list price of every language model the catalogue offers, by model name. */
export const LLM_PRICES: Readonly<Record<string, LlmPrice>> = Object.fromEntries(LLM_PROVIDERS.flatMap((p) => Object.entries(p.prices)))

function speechPrice<P>(id: string, pricing: Pricing<P>, free: P, cfg: Config): SpeechPrice<P> {
  if (pricing === 'free') return { model: id, price: free }
  const model = pricing.model(cfg)
  return { model, price: pricing.prices[model] }
}

/** The price table of this configuration; a VOICE_PRICE_TABLE that cannot be read is a ConfigError. */
export function priceTableFor(cfg: Config): PriceTable {
  const base: PriceTable = {
    llm: { ...LLM_PRICES },
    tts: Object.fromEntries(providersOf('tts').map((e) => [e.id, speechPrice(e.id, e.pricing, { perMChars: 0 }, cfg)])),
    stt: Object.fromEntries(providersOf('stt').map((e) => [e.id, speechPrice(e.id, e.pricing, 0, cfg)])),
    telephony: { inbound: 0, outbound: 0 },
  }
  try {
    return parsePriceTable(cfg.VOICE_PRICE_TABLE, base)
  } catch (err) {
    throw new ConfigError(`VOICE_PRICE_TABLE: ${(err as Error).message}`)
  }
}

/** What calls may run here: language models by the name their backend is sent, speech providers by id. */
export interface ModelsInUse {
  llm: readonly string[]
  stt: readonly string[]
  tts: readonly string[]
}

/** Those of `inUse` the table has no price for, each as `<kind> <model>` (`LLM llama3.2`, `STT deepgram nova-2`), sorted. */
export function unpricedModels(prices: PriceTable, inUse: ModelsInUse): string[] {
  const out = new Set<string>()
  if (!prices.llm['*']) for (const model of inUse.llm) if (!prices.llm[model]) out.add(`LLM ${model}`)
  for (const id of inUse.stt) if (prices.stt[id]?.price === undefined) out.add(`STT ${id} ${prices.stt[id]?.model ?? ''}`.trim())
  for (const id of inUse.tts) if (!prices.tts[id]?.price) out.add(`TTS ${id} ${prices.tts[id]?.model ?? ''}`.trim())
  return [...out].sort()
}
