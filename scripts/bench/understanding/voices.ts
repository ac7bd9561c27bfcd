// The callers' voices: none is flite, the agent's own. Eight base voices from three engines
// (festival with three festvox voices, espeak-ng variants, SVOX Pico), and four variants that
// sox makes of base voices (slower, faster, higher, lower) for a third of the utterances.
// The SIPp recording is a voice of its own with one clip (human.ts).

export type Engine = 'festival' | 'espeak' | 'pico'

export interface BaseVoice {
  id: string
  engine: Engine
  /** festival: the voice's scheme name (voice_<name>); espeak-ng: -v; pico: the language. */
  voice: string
}

export interface VariantVoice {
  id: string
  of: string
  /** The sox effect that makes it: tempo keeps the pitch, pitch keeps the tempo. */
  effect: ['tempo', number] | ['pitch', number]
}

export type Voice = BaseVoice | VariantVoice

export const BASE_VOICES: BaseVoice[] = [
  { id: 'festival-kal', engine: 'festival', voice: 'kal_diphone' },
  // Debian's festvox-kdlpc16k package installs the ked diphone voice
  { id: 'festival-ked', engine: 'festival', voice: 'ked_diphone' },
  { id: 'festival-slt', engine: 'festival', voice: 'cmu_us_slt_arctic_hts' },
  { id: 'espeak-us', engine: 'espeak', voice: 'en-us' },
  { id: 'espeak-gb-f3', engine: 'espeak', voice: 'en-gb+f3' },
  { id: 'espeak-us-m3', engine: 'espeak', voice: 'en-us+m3' },
  { id: 'pico-us', engine: 'pico', voice: 'en-US' },
  { id: 'pico-gb', engine: 'pico', voice: 'en-GB' },
]

export const VARIANT_VOICES: VariantVoice[] = [
  { id: 'festival-kal-slow', of: 'festival-kal', effect: ['tempo', 0.85] },
  { id: 'pico-us-fast', of: 'pico-us', effect: ['tempo', 1.15] },
  { id: 'espeak-us-high', of: 'espeak-us', effect: ['pitch', 300] },
  { id: 'festival-slt-low', of: 'festival-slt', effect: ['pitch', -300] },
]

/** SIPp's recorded human speech (g711a.pcap): one clip, its own voice. */
export const HUMAN_VOICE = 'sipp-human'

export const VOICES: Voice[] = [...BASE_VOICES, ...VARIANT_VOICES]
export const VOICE_IDS = [...VOICES.map((v) => v.id), HUMAN_VOICE]

export const isVariant = (v: Voice): v is VariantVoice => 'of' in v

/** A variant voice says a third of the utterances: those whose id hashes to 0 mod 3. */
export function variantSays(utteranceId: string): boolean {
  return hash32(utteranceId) % 3 === 0
}

/** FNV-1a: a stable small hash for choosing and seeding. */
export function hash32(s: string): number {
  let h = 0x811c9dc5
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193) >>> 0
  return h >>> 0
}

/** Whether `voice` has a clip of `utteranceId` (variants: a third; base voices: all). */
export function voiceSays(voice: string, utteranceId: string): boolean {
  const v = VOICES.find((x) => x.id === voice)
  if (!v) return false
  return isVariant(v) ? variantSays(utteranceId) : true
}
