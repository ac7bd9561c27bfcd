/**
 * Cost of a call per component from a price table (USD). Pure; the table comes from config
 * (VOICE_PRICE_TABLE, JSON) merged over the defaults below.
 */
export interface PriceTable {
  /** Per million tokens, by model name; `*` is the fallback. */
  llm: Record<string, { inputPerMTok: number; outputPerMTok: number }>
  /** Per million characters, by TTS provider. */
  tts: Record<string, number>
  /** Per minute of audio, by STT provider. */
  stt: Record<string, number>
  /** Per minute of call, by direction. */
  telephony: { inbound: number; outbound: number }
}

/** Public list prices when this was written; operators override them with VOICE_PRICE_TABLE. */
export const DEFAULT_PRICES: PriceTable = {
  llm: {
    '*': { inputPerMTok: 0, outputPerMTok: 0 },
    'gpt-4o-mini': { inputPerMTok: 0.15, outputPerMTok: 0.6 },
    'gpt-4o': { inputPerMTok: 2.5, outputPerMTok: 10 },
    'claude-3-5-haiku-latest': { inputPerMTok: 0.8, outputPerMTok: 4 },
  },
  tts: { 'flite-tts': 0, 'elevenlabs-tts': 50, 'openai-tts': 15 },
  stt: { 'pocketsphinx-stt': 0, 'sherpa-onnx-stt': 0, 'deepgram-stt': 0.0077, 'openai-stt': 0.006 },
  telephony: { inbound: 0, outbound: 0 },
}

export interface CallUsage {
  /** web and stream calls reach no carrier: no telephony cost. */
  direction: 'inbound' | 'outbound' | 'web' | 'stream'
  durationMs: number
  llm: { model: string; inputTokens: number; outputTokens: number }[]
  tts: { provider: string; characters: number }[]
  stt: { provider: string; audioMs: number }[]
}

export interface CallCost {
  llm: number
  tts: number
  stt: number
  telephony: number
  total: number
}

/** Money to 6 decimals, so sums of many small items do not drift. */
const money = (n: number) => Math.round(n * 1e6) / 1e6

export function callCost(prices: PriceTable, usage: CallUsage): CallCost {
  let llm = 0
  for (const u of usage.llm) {
    const p = prices.llm[u.model] ?? prices.llm['*']
    if (p) llm += (u.inputTokens * p.inputPerMTok + u.outputTokens * p.outputPerMTok) / 1e6
  }
  let tts = 0
  for (const u of usage.tts) tts += (u.characters * (prices.tts[u.provider] ?? 0)) / 1e6
  let stt = 0
  for (const u of usage.stt) stt += (u.audioMs / 60_000) * (prices.stt[u.provider] ?? 0)
  const perMinute = usage.direction === 'inbound' || usage.direction === 'outbound' ? prices.telephony[usage.direction] : 0
  const telephony = (usage.durationMs / 60_000) * perMinute
  const parts = { llm: money(llm), tts: money(tts), stt: money(stt), telephony: money(telephony) }
  return { ...parts, total: money(parts.llm + parts.tts + parts.stt + parts.telephony) }
}

export class PriceTableError extends Error {}

/** Reads a JSON price table; every given number must be finite and non-negative. */
export function parsePriceTable(json: string, base: PriceTable = DEFAULT_PRICES): PriceTable {
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
      out.llm[model] = { inputPerMTok: price(p.inputPerMTok, `llm.${model}.inputPerMTok`), outputPerMTok: price(p.outputPerMTok, `llm.${model}.outputPerMTok`) }
    }
  }
  for (const section of ['tts', 'stt'] as const) {
    const s = raw[section]
    if (s === undefined) continue
    if (!isObject(s)) throw new PriceTableError(`${section} prices must be an object of providers`)
    for (const [provider, p] of Object.entries(s)) out[section][provider] = price(p, `${section}.${provider}`)
  }
  if (raw.telephony !== undefined) {
    if (!isObject(raw.telephony)) throw new PriceTableError('telephony prices must be an object')
    for (const [dir, p] of Object.entries(raw.telephony)) {
      if (dir !== 'inbound' && dir !== 'outbound') throw new PriceTableError(`telephony.${dir}: only inbound and outbound`)
      out.telephony[dir] = price(p, `telephony.${dir}`)
    }
  }
  return out
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}

function price(v: unknown, path: string): number {
  if (typeof v !== 'number' || !Number.isFinite(v) || v < 0) throw new PriceTableError(`${path} must be a non-negative number`)
  return v
}
