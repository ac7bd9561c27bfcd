// Voice engine figures on this machine: VAD CPU per call, flite synthesis speed, and the
// platform-added latency from a committed caller turn to the first agent audio frame with a
// zero-delay fake LLM. Run: bun run scripts/bench/voice-engines.ts
import { concatFrames } from '../../src/realtime/voice/audio.ts'
import { OpenAiLlm } from '../../src/realtime/voice/llm/index.ts'
import { streamReply } from '../../src/realtime/voice/reply.ts'
import { resample } from '../../src/realtime/voice/resample.ts'
import { FliteTts } from '../../src/realtime/voice/tts/index.ts'
import { percentile, SpeechHandle } from '../../src/realtime/voice/turn/index.ts'
import { createVadStream, EnergyVad, SileroVad, type VadModel } from '../../src/realtime/voice/vad/index.ts'
import { startFakeOpenAi } from '../../test/fakes/openai.ts'
import { fliteSpeech, frames20ms, silence } from '../../test/helpers/speech.ts'

const cpuMs = () => {
  const u = process.cpuUsage()
  return (u.user + u.system) / 1000
}

async function vadCpuPerAudioSecond(model: VadModel, rate: number): Promise<number> {
  const speech = fliteSpeech('Hello, I would like to book a table for two people tonight at eight.')
  const clip = concatFrames([silence(500, 16000), speech, silence(1000, 16000)])
  const audio = { samples: resample(clip.samples, 16000, rate), sampleRate: rate }
  const rounds = 4
  const c0 = cpuMs()
  for (let r = 0; r < rounds; r++) {
    const s = createVadStream(model, { startThreshold: 0.5, stopThreshold: 0.35, minSpeechMs: 100, minSilenceMs: 400 })
    const done = (async () => {
      for await (const _ of s);
    })()
    for (const f of frames20ms(audio)) s.push(f)
    s.end()
    await done
  }
  const audioSec = (rounds * audio.samples.length) / rate
  return (cpuMs() - c0) / audioSec
}

console.log('## VAD CPU per second of call audio')
const silero = await SileroVad.load()
for (const rate of [8000, 16000]) {
  const energy = await vadCpuPerAudioSecond(new EnergyVad(), rate)
  const s = await vadCpuPerAudioSecond(silero, rate)
  console.log(`${rate} Hz: silero ${s.toFixed(2)} ms CPU/s (${((s / 1000) * 100).toFixed(2)}% of a core per call), energy baseline ${energy.toFixed(3)} ms CPU/s, ratio ${(s / energy).toFixed(0)}x`)
}

console.log('\n## flite synthesis (WASI, worker thread)')
const sentence = 'Thank you for calling, how can I help you today?'
for (const workers of [1, 2]) {
  const tts = new FliteTts({ voice: 'kal16', sampleRate: 8000, workers })
  const one = async () => {
    let audioMs = 0
    for await (const ev of tts.synthesize(sentence)) if (ev.type === 'done') audioMs = ev.audioMs
    return audioMs
  }
  await one()
  const n = 16
  const t0 = performance.now()
  const audio = (await Promise.all(Array.from({ length: n }, one))).reduce((a, b) => a + b, 0)
  const wall = performance.now() - t0
  console.log(`${workers} worker(s): ${n} sentences in ${wall.toFixed(0)} ms wall, ${(audio / wall).toFixed(1)}x real time, ${(audio / 1000 / (wall / 1000) / (audio / n / 1000)).toFixed(1)} sentences/s`)
}
FliteTts.shutdown()

console.log('\n## committed turn -> first agent audio frame (zero-delay fake LLM, flite TTS, 8 kHz)')
const fake = startFakeOpenAi()
const llm = new OpenAiLlm({ baseUrl: fake.url, apiKey: 'sk', model: 'bench', conn: { maxRetries: 0, timeoutMs: 10_000, retryIntervalMs: 1 } })
const request = { messages: [{ role: 'user' as const, content: 'hi' }] }
let serial = 0
const reply = () => `Sure, let me check ticket ${++serial} for you. It should only take a moment.`
const p = (v: number[], q: number) => (percentile(v, q) ?? Number.NaN).toFixed(1)

/** One turn: returns [first audio ms, LLM first token ms] after the turn was committed. */
async function turn(tts: FliteTts): Promise<[number, number]> {
  fake.chat.push({ text: reply() })
  const t0 = performance.now()
  const r = await streamReply({ llm, request, tts, speech: new SpeechHandle(), onAudio: () => {} })
  return [r.firstAudioAt! - t0, r.llmTtftMs!]
}

for (const workers of [1, 2]) {
  const tts = new FliteTts({ voice: 'kal16', sampleRate: 8000, workers })
  await turn(tts)
  for (const calls of [1, 20, 50]) {
    // each call takes a turn at a random moment of every 4 s window: turns of different calls overlap as they would live
    const results: [number, number][] = []
    await Promise.all(
      Array.from({ length: calls }, async () => {
        for (let round = 0; round < 3; round++) {
          await new Promise((r) => setTimeout(r, Math.random() * 4000))
          results.push(await turn(tts))
        }
      }),
    )
    const audio = results.map((r) => r[0])
    const llmOnly = results.map((r) => r[1])
    console.log(
      `flite workers ${workers}, ${calls} calls talking: first audio p50 ${p(audio, 50)} ms p99 ${p(audio, 99)} ms ` +
        `(baseline: LLM first token p50 ${p(llmOnly, 50)} p99 ${p(llmOnly, 99)}; ratio p99 ${(percentile(audio, 99)! / percentile(llmOnly, 99)!).toFixed(1)}x)`,
    )
  }
  FliteTts.shutdown()
}
fake.stop()
silero.close()
