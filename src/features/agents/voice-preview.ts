// A voice preview (POST /api/agents/{id}/voice-preview, voice-preview.http.ts): a short sample spoken by the appliance's own TTS in the
// agent's voice, or in a voice being chosen (members given in the body replace the agent's), as
// a WAV. The engines arrive once the speech side has loaded; until then the answer is 503.
import { writeWav } from '../../realtime/voice/audio.ts'
import type { VoiceEngines } from '../../realtime/voice/engines.ts'
import { synthesizeAll } from '../../realtime/voice/tts/index.ts'
import type { Voice } from './agents.model.ts'

export const PREVIEW_SAMPLE_RATE = 16000
export const DEFAULT_TEXT = 'Hello, thank you for calling. How can I help you today?'
/** Enough for a welcome line (about 20 s of speech); 500 characters cost 0.42 s of a flite worker. */
export const PREVIEW_MAX_CHARS = 300

/** The whole sample as one mono 16 kHz WAV, and why another voice spoke when the chosen one cannot here. */
export async function speakPreview(engines: VoiceEngines, voice: Voice, language: string, text: string): Promise<{ wav: Uint8Array; fallback?: string }> {
  const { tts, fallbacks } = engines.forAgent({ llmModel: '', voice, language }, PREVIEW_SAMPLE_RATE)
  // background: live calls' syntheses are served first (see FlitePool)
  const samples = await synthesizeAll(tts, text, 'background')
  return { wav: writeWav({ samples, sampleRate: PREVIEW_SAMPLE_RATE }), fallback: fallbacks[0] }
}

