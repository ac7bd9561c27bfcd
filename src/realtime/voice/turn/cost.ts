/**
 * Cost of a call per component from a price table (USD). Pure; the table is the catalogue's list
 * prices for the models this configuration runs (voice/registry/prices.ts) with the operator's
 * VOICE_PRICE_TABLE over them. Usage of a model the table has no price for costs nothing here and
 * is named in `unpriced`, so a missing price never reads as a cost of 0.
 */
export interface LlmPrice {
  inputPerMTok: number
  outputPerMTok: number
  /** Input tokens the provider served from its prompt cache; at inputPerMTok when absent. */
  cachedInputPerMTok?: number
}

/** Per million characters, or (a model billed by the audio it makes) per minute of speech. */
export type TtsPrice = { perMChars: number } | { perMinute: number }

/** A speech provider as this configuration runs it: its model, and that model's price if known. */
export interface SpeechPrice<P> {
  model: string
  price?: P
}

export interface PriceTable {
  /** By model, as the backend is sent it; `*` (only when the operator sets it) prices any other. */
  llm: Record<string, LlmPrice>
  /** By provider id (the registry's: `openai`, `elevenlabs`). */
  tts: Record<string, SpeechPrice<TtsPrice>>
  /** Per minute of audio, by provider id. */
  stt: Record<string, SpeechPrice<number>>
  /** Per minute of call, by direction. */
  telephony: { inbound: number; outbound: number }
}

export interface CallUsage {
  /** web and stream calls reach no carrier: no telephony cost. */
  direction: 'inbound' | 'outbound' | 'web' | 'stream' | 'test'
  durationMs: number
  /** cachedInputTokens: the part of inputTokens served from the provider's prompt cache. */
  llm: { model: string; inputTokens: number; outputTokens: number; cachedInputTokens?: number }[]
  /** By provider id. */
  tts: { provider: string; characters: number; audioMs: number }[]
  stt: { provider: string; audioMs: number }[]
}

export interface CallCost {
  llm: number
  tts: number
  stt: number
  telephony: number
  total: number
  /** Models the call used that have no price, sorted; absent when every one has. */
  unpriced?: string[]
}

/** Money to 6 decimals, so sums of many small items do not drift. */
const money = (n: number) => Math.round(n * 1e6) / 1e6

export function callCost(prices: PriceTable, usage: CallUsage): CallCost {
  const unpriced = new Set<string>()
  let llm = 0
  for (const u of usage.llm) {
    if (u.inputTokens === 0 && u.outputTokens === 0) continue
    const p = prices.llm[u.model] ?? prices.llm['*']
    if (!p) {
      unpriced.add(u.model)
      continue
    }
    const cached = Math.min(u.cachedInputTokens ?? 0, u.inputTokens)
    llm += ((u.inputTokens - cached) * p.inputPerMTok + cached * (p.cachedInputPerMTok ?? p.inputPerMTok) + u.outputTokens * p.outputPerMTok) / 1e6
  }
  let tts = 0
  for (const u of usage.tts) {
    if (u.characters === 0 && u.audioMs === 0) continue
    const p = prices.tts[u.provider]
    if (!p?.price) unpriced.add(p?.model ?? u.provider)
    else tts += 'perMChars' in p.price ? (u.characters * p.price.perMChars) / 1e6 : (u.audioMs / 60_000) * p.price.perMinute
  }
  let stt = 0
  for (const u of usage.stt) {
    if (u.audioMs === 0) continue
    const p = prices.stt[u.provider]
    if (p?.price === undefined) unpriced.add(p?.model ?? u.provider)
    else stt += (u.audioMs / 60_000) * p.price
  }
  const perMinute = usage.direction === 'inbound' || usage.direction === 'outbound' ? prices.telephony[usage.direction] : 0
  const telephony = (usage.durationMs / 60_000) * perMinute
  const parts = { llm: money(llm), tts: money(tts), stt: money(stt), telephony: money(telephony) }
  const cost: CallCost = { ...parts, total: money(parts.llm + parts.tts + parts.stt + parts.telephony) }
  if (unpriced.size) cost.unpriced = [...unpriced].sort()
  return cost
}

export class PriceTableError extends Error {}

/**
 * Reads the operator's JSON price table over `base`; every given number must be finite and
 * non-negative. TTS and STT are priced by provider id, for the model the configuration runs;
 * only the providers `base` has can be priced. A TTS price is a number (per million
 * characters) or `{"perMinute": n}`.
 */
export function parsePriceTable(json: string, base: PriceTable): PriceTable {
  if (!json.trim()) return base
  let raw: unknown
  try {
    raw = JSON.parse(json)
  } catch (err) {
    throw new PriceTableError(`price table is not JSON: ${(err as Error).message}`)
  }
  if (!isObject(raw)) throw new PriceTableError('price table must be a JSON object')
  const known = new Set(['llm', 'tts', 'stt', 'telephony'])
  for (const k of Object.keys(raw)) if (!known.has(k)) throw new PriceTableError(`unknown price table section ${k}`)
  const out: PriceTable = { llm: { ...base.llm }, tts: { ...base.tts }, stt: { ...base.stt }, telephony: { ...base.telephony } }
  if (raw.llm !== undefined) {
    if (!isObject(raw.llm)) throw new PriceTableError('llm prices must be an object of models')
    for (const [model, p] of Object.entries(raw.llm)) {
      if (!isObject(p)) throw new PriceTableError(`llm.${model} must be an object`)
      const at = `llm.${model}`
      out.llm[model] = { inputPerMTok: price(p.inputPerMTok, `${at}.inputPerMTok`), outputPerMTok: price(p.outputPerMTok, `${at}.outputPerMTok`) }
      if (p.cachedInputPerMTok !== undefined) out.llm[model].cachedInputPerMTok = price(p.cachedInputPerMTok, `${at}.cachedInputPerMTok`)
    }
  }
  for (const [id, p] of speechSection(raw, 'tts', base)) out.tts[id] = { model: base.tts[id]!.model, price: ttsPrice(p, `tts.${id}`) }
  for (const [id, p] of speechSection(raw, 'stt', base)) out.stt[id] = { model: base.stt[id]!.model, price: price(p, `stt.${id}`) }
  if (raw.telephony !== undefined) {
    if (!isObject(raw.telephony)) throw new PriceTableError('telephony prices must be an object')
    for (const [dir, p] of Object.entries(raw.telephony)) {
      if (dir !== 'inbound' && dir !== 'outbound') throw new PriceTableError(`telephony.${dir}: only inbound and outbound`)
      out.telephony[dir] = price(p, `telephony.${dir}`)
    }
  }
  return out
}

function speechSection(raw: Record<string, unknown>, section: 'tts' | 'stt', base: PriceTable): [string, unknown][] {
  const s = raw[section]
  if (s === undefined) return []
  if (!isObject(s)) throw new PriceTableError(`${section} prices must be an object of providers`)
  const ids = Object.keys(base[section])
  for (const id of Object.keys(s)) {
    if (!ids.includes(id)) throw new PriceTableError(`${section}.${id}: no ${section.toUpperCase()} provider has that id; use one of ${ids.join(', ')}`)
  }
  return Object.entries(s)
}

function ttsPrice(p: unknown, path: string): TtsPrice {
  if (!isObject(p)) return { perMChars: price(p, path) }
  if (Object.keys(p).join() !== 'perMinute') throw new PriceTableError(`${path} must be a number (per million characters) or {"perMinute": n}`)
  return { perMinute: price(p.perMinute, `${path}.perMinute`) }
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}

function price(v: unknown, path: string): number {
  if (typeof v !== 'number' || !Number.isFinite(v) || v < 0) throw new PriceTableError(`${path} must be a non-negative number`)
  return v
}
