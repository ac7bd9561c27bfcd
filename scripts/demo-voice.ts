// An offline conversation, in process and in real time: a caller made of flite speech talks to
// an agent running Silero VAD, the local STT (pocketsphinx if installed), flite TTS and the
// configured LLM, or a scripted stand-in speaking the OpenAI protocol when none is configured.
// No SIP here: the call session is driven by a 20 ms clock as the media layer will drive it.
// Run: npm run demo:voice
import { llmBrain } from '../src/realtime/voice/brain/index.ts'
import { loadConfig } from '../src/platform/config/index.ts'
import { concatFrames } from '../src/realtime/voice/audio.ts'
import { createVoiceEngines } from '../src/realtime/voice/engines.ts'
import { OpenAiLlm } from '../src/realtime/voice/llm/index.ts'
import { priceTableFor } from '../src/realtime/voice/registry/index.ts'
import { type EndReason, sessionCost, VoiceSession } from '../src/realtime/voice/session/index.ts'
import { FliteTts } from '../src/realtime/voice/tts/index.ts'
import { startFakeOpenAi } from '../test/fakes/openai.ts'
import { fliteSpeech, silence } from '../test/helpers/speech.ts'
import { baseAgent } from '../test/unit/voice/session/timeline.ts'

const cfg = loadConfig()
const engines = await createVoiceEngines({ ...cfg, STT_PROVIDER: cfg.STT_PROVIDER === 'auto' ? 'pocketsphinx' : cfg.STT_PROVIDER })
let stand: ReturnType<typeof startFakeOpenAi> | undefined
let llm = engines.llm
if (!llm) {
  stand = startFakeOpenAi()
  stand.chat.push(
    { text: 'We are open from nine to five, Monday to Friday.' },
    { text: 'You are welcome. Goodbye!', toolCalls: [{ name: 'end_call', arguments: '{}' }] },
  )
  llm = new OpenAiLlm({ baseUrl: stand.url, apiKey: 'demo', model: 'scripted-stand-in' })
}
console.log(`engines: ${engines.notes.join('; ')}${stand ? '; LLM: scripted stand-in' : ''}`)

const rate = 16000
const caller = concatFrames([
  silence(4000, rate),
  fliteSpeech('what are your opening hours'),
  silence(4500, rate),
  fliteSpeech('thank you very much'),
  silence(6000, rate),
])
const t0 = performance.now()
const now = () => performance.now() - t0
const ended = Promise.withResolvers<EndReason>()
const agent = {
  ...baseAgent,
  firstSpeaker: 'agent' as const,
  welcomeMessage: 'Hello, thank you for calling {{business}}. How can I help?',
  systemPrompt: 'You are the friendly receptionist of {{business}}. Answer in one or two short sentences.',
}
const session = new VoiceSession({
  engines: { vad: engines.vad, stt: engines.stt, tts: engines.tts(rate) },
  brain: llmBrain(llm, agent),
  settings: engines.settings,
  agent,
  hooks: { send: () => {}, hangup: (reason) => ended.resolve(reason) },
  sampleRate: rate,
  now,
})
session.start()
let frame = 0
const clock = setInterval(() => {
  const samples = caller.samples.subarray(frame * 320, (frame + 1) * 320)
  frame++
  session.pushAudio({ samples: samples.length === 320 ? samples : new Int16Array(320), sampleRate: rate })
  session.tick()
  if (frame * 320 > caller.samples.length + rate * 10) session.callerHungUp()
}, 20)
const reason = await ended.promise
clearInterval(clock)
const report = session.report()
console.log(`\ncall ended: ${reason} after ${(report.durationMs / 1000).toFixed(1)} s\n`)
for (const item of report.transcript) console.log(`[${item.timestamp.toFixed(2).padStart(6)} s] ${item.role.padEnd(5)} ${item.text}`)
console.log('\nper turn (ms): endpointing / STT final / LLM first token / TTS first audio / voice-to-voice')
for (const t of report.turns) {
  console.log([t.endpointingMs, t.sttFinalMs, t.llmTtftMs, t.ttsTtfbMs, t.voiceToVoiceMs].map((v) => (v === undefined ? '-' : v.toFixed(0))).join(' / '))
}
console.log(`voice-to-voice p50 ${report.latency.voiceToVoiceMs.p50?.toFixed(0)} ms, p99 ${report.latency.voiceToVoiceMs.p99?.toFixed(0)} ms`)
console.log('cost (USD):', sessionCost(report, priceTableFor(cfg), 'inbound'))
stand?.stop()
FliteTts.shutdown()
process.exit(0)
