// The cloud shape's providers, in a process of their own: streaming STT over Deepgram's protocol,
// an OpenAI-compatible LLM and ElevenLabs TTS, each with a realistic first-byte delay.
// Prints { deepgram, llm, llmKey, tts } once listening; exits when stdin closes or says exit.
import { startFakeDeepgram } from '../../../test/fakes/deepgram.ts'
import { startFakeElevenLabs } from '../../../test/fakes/elevenlabs.ts'
import { startFakeOpenAi } from '../../../test/fakes/openai-chat-server.ts'
import { stepAudio } from './audio.ts'
import { CALLER, CLOUD_DELAYS, llmReply, transcriptOf } from './script.ts'

/** Speech resuming within this silence after a final is the same turn (pauses inside a turn are shorter, gaps between turns longer). */
const JOIN_WITHIN_MS = 700

const stt = startFakeDeepgram()
stt.perConnection = CALLER.map((s, i) => ({ text: transcriptOf(s), wordStartsMs: stepAudio(s, i + 1).wordStartsMs }))
stt.finalAfterMs = CLOUD_DELAYS.sttFinalMs
stt.joinWithinMs = JOIN_WITHIN_MS
const llm = startFakeOpenAi((req) => {
  // the post-call analysis (structured output): not part of the conversation
  if (req.response_format) return JSON.stringify({ summary: 'A caller booked a visit.', sentiment: 'neutral', isVoicemail: false, scores: [] })
  const lastUser = [...req.messages].reverse().find((m) => m.role === 'user')
  return llmReply(lastUser?.content ?? '')
})
llm.firstTokenMs = CLOUD_DELAYS.llmFirstTokenMs
const tts = startFakeElevenLabs()
tts.delays = { firstMs: CLOUD_DELAYS.ttsFirstAudioMs, chunkMs: 0 }
console.log(JSON.stringify({ deepgram: stt.url, llm: llm.baseUrl, llmKey: llm.apiKey, tts: tts.url }))
const decoder = new TextDecoder()
for await (const chunk of Bun.stdin.stream()) if (decoder.decode(chunk).includes('exit')) break
stt.stop()
await llm.stop()
tts.stop()
process.exit(0)
