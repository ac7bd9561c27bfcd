/**
 * Whether caller speech during the agent's speech should cut the agent off. Pure: the voice
 * session feeds it what the VAD and STT say and acts on the answer.
 */
export interface BargeInParams {
  /** Caller speech (by VAD) needed before words that are not a backchannel interrupt. */
  minSpeechMs: number
  /** Caller speech this long interrupts even before any transcript arrives: backchannels are short. */
  maxBackchannelMs: number
  /** Words and phrases that show listening, not a wish to speak. */
  backchannels: string[]
  /** A caller sound this loud (dBFS) holds the agent before the VAD calls it speech (vad/onset.ts); 0: only the VAD holds it. */
  onsetDbfs?: number
}

export const DEFAULT_BACKCHANNELS = ['uh-huh', 'uh huh', 'oh', 'ah', 'aha', 'mhm', 'mm-hmm', 'mm hmm', 'mm', 'hmm', 'yeah', 'yep', 'yes', 'okay', 'ok', 'right', 'sure', 'i see', 'got it', 'alright']

export const DEFAULT_BARGE_IN: BargeInParams = { minSpeechMs: 300, maxBackchannelMs: 700, backchannels: DEFAULT_BACKCHANNELS }

export type BargeInDecision = 'interrupt' | 'wait' | 'ignore'

export interface CallerSpeech {
  /** Continuous caller speech so far, by the VAD. */
  speechMs: number
  /** Interim or final transcript of this caller utterance so far ('' when none yet). */
  transcript: string
  /** The transcript ends in an interim: a guess the STT may still change ("so" for an "uh-huh"). */
  tentative?: boolean
}

export function normalizeWords(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s'-]+/gu, ' ')
    .replace(/\s+/g, ' ')
    .trim()
}

/** True when the utterance is only backchannel words ("yeah", "uh-huh okay", "mm."). */
export function isBackchannel(text: string, backchannels: string[]): boolean {
  const said = normalizeWords(text)
  if (!said) return false
  const phrases = new Set(backchannels.map(normalizeWords))
  if (phrases.has(said)) return true
  // greedy cover by known phrases, longest first, so "uh huh yeah" and "mm hmm okay" count
  const sorted = [...phrases].sort((a, b) => b.length - a.length)
  let rest = said
  while (rest) {
    const hit = sorted.find((p) => rest === p || rest.startsWith(`${p} `))
    if (!hit) return false
    rest = rest.slice(hit.length).trim()
  }
  return true
}

export function bargeInDecision(params: BargeInParams, speech: CallerSpeech): BargeInDecision {
  const heard = normalizeWords(speech.transcript)
  if (heard) {
    // "yeah" stays ignorable however long it is drawn out; more words change the transcript. A
    // guess ("oh" for the first syllable of "open") keeps the agent held: letting it play on and
    // then stopping it is a blip the caller hears
    if (isBackchannel(heard, params.backchannels)) return !speech.tentative ? 'ignore' : speech.speechMs >= params.maxBackchannelMs ? 'interrupt' : 'wait'
    // the agent is already held: a guess decides only speech too long to be a backchannel
    return speech.speechMs >= (speech.tentative ? params.maxBackchannelMs : params.minSpeechMs) ? 'interrupt' : 'wait'
  }
  return speech.speechMs >= params.maxBackchannelMs ? 'interrupt' : 'wait'
}

export function validateBargeIn(p: BargeInParams): BargeInParams {
  if (!(p.minSpeechMs >= 0) || !(p.maxBackchannelMs >= 0)) throw new RangeError('barge-in durations must be non-negative milliseconds')
  if (p.onsetDbfs !== undefined && !(p.onsetDbfs <= 0 && p.onsetDbfs >= -90)) throw new RangeError('the onset level must be from -90 to 0 dBFS')
  return p
}
