// Platform-added latency of whole call sessions: from the VAD's end-of-speech decision to the
// first agent audio frame sent, with zero-delay fakes for STT and LLM, real Silero VAD and real
// flite TTS, at 1, 20 and 50 concurrent calls on one shared 20 ms media clock (what the media
// layer will drive). Also CPU per talking call. RTP packetization is not included.
// Run: bun run scripts/bench/voice-session.ts
import { concatFrames } from '../../src/voice/audio.ts'
import { OpenAiLlm } from '../../src/voice/llm/index.ts'
import { resample } from '../../src/voice/resample.ts'
import { VoiceSession } from '../../src/voice/session/index.ts'
import { FliteTts } from '../../src/voice/tts/index.ts'
import { DEFAULT_BARGE_IN, percentile } from '../../src/voice/turn/index.ts'
import { SileroVad } from '../../src/voice/vad/index.ts'
import { startFakeOpenAi } from '../../test/fakes/openai.ts'
import { ScriptedStt } from '../../test/helpers/scripted-engines.ts'
import { fliteSpeech, silence } from '../../test/helpers/speech.ts'
import { baseAgent } from '../../test/unit/voice/session/timeline.ts'

const RATE = 8000
const FRAME = RATE / 50
const utterance = fliteSpeech('I would like to check the status of my order please.')
const silero = await SileroVad.load()
const fake = startFakeOpenAi()
const llm = new OpenAiLlm({ baseUrl: fake.url, apiKey: 'sk', model: 'bench', conn: { maxRetries: 0, timeoutMs: 10_000, retryIntervalMs: 1 } })
const tts = new FliteTts({ voice: 'kal16', sampleRate: RATE, workers: 1 })

/** Three caller turns with 3.5 s pauses (room for the answer), starting at a random moment of the first 6 s. */
function callerAudio(): Int16Array {
  const parts = [silence(Math.random() * 6000, 16000)]
  for (let i = 0; i < 3; i++) parts.push(utterance, silence(3500, 16000))
  return resample(concatFrames(parts).samples, 16000, RATE)
}

async function run(calls: number): Promise<{ platform: number[]; llm: number[]; tts: number[]; cpuPerCallPct: number; seconds: number }> {
  const t0 = performance.now()
  const now = () => performance.now() - t0
  const sessions = Array.from({ length: calls }, () => {
    for (let i = 0; i < 3; i++) fake.chat.push({ text: 'Let me look that up.' })
    const audio = callerAudio()
    const session = new VoiceSession({
      engines: { vad: silero, stt: new ScriptedStt(['check my order', 'check my order', 'check my order']), llm, tts },
      settings: {
        vad: { startThreshold: 0.5, stopThreshold: 0.35, minSpeechMs: 100, minSilenceMs: 400 },
        endpointing: { maxFinalWaitMs: 1500, useInterimOnTimeout: true },
        bargeIn: { ...DEFAULT_BARGE_IN },
      },
      agent: { ...baseAgent, silenceTimeoutMs: 60_000 },
      hooks: { send: () => {}, hangup: () => {} },
      sampleRate: RATE,
      now,
    })
    session.start()
    return { session, audio }
  })
  const frames = Math.max(...sessions.map((s) => s.audio.length)) / FRAME
  const cpu0 = process.cpuUsage()
  let frame = 0
  await new Promise<void>((resolve) => {
    const clock = setInterval(() => {
      // catch up if the event loop fell behind, as a media clock would
      const due = Math.floor(now() / 20)
      for (; frame <= due && frame < frames; frame++) {
        for (const s of sessions) {
          const chunk = s.audio.subarray(frame * FRAME, (frame + 1) * FRAME)
          s.session.pushAudio({ samples: chunk.length === FRAME ? chunk : new Int16Array(FRAME), sampleRate: RATE })
          s.session.tick()
        }
      }
      if (frame >= frames) {
        clearInterval(clock)
        resolve()
      }
    }, 20)
  })
  const cpu = process.cpuUsage(cpu0)
  const seconds = now() / 1000
  const platform: number[] = []
  const llmMs: number[] = []
  const ttsMs: number[] = []
  for (const s of sessions) {
    s.session.callerHungUp()
    for (const t of s.session.report().turns) {
      if (t.voiceToVoiceMs !== undefined && t.endpointingMs !== undefined) platform.push(t.voiceToVoiceMs - t.endpointingMs)
      if (t.llmTtftMs !== undefined) llmMs.push(t.llmTtftMs)
      if (t.ttsTtfbMs !== undefined) ttsMs.push(t.ttsTtfbMs)
    }
  }
  return { platform, llm: llmMs, tts: ttsMs, cpuPerCallPct: ((cpu.user + cpu.system) / 1000 / (seconds * 1000) / calls) * 100, seconds }
}

console.log('## end-of-speech decision -> first agent frame (platform-added), per turn')
for (const calls of [1, 20, 50]) {
  const r = await run(calls)
  const p = (q: number) => percentile(r.platform, q)?.toFixed(1)
  console.log(
    `${calls} calls: ${r.platform.length} turns, p50 ${p(50)} ms, p99 ${p(99)} ms, max ${Math.max(...r.platform).toFixed(1)} ms; ` +
      `CPU ${r.cpuPerCallPct.toFixed(2)}% of a core per talking call (${r.seconds.toFixed(1)} s); ` +
      `within it: LLM first token p50 ${percentile(r.llm, 50)?.toFixed(1)} p99 ${percentile(r.llm, 99)?.toFixed(1)} ms, ` +
      `TTS first audio p50 ${percentile(r.tts, 50)?.toFixed(1)} p99 ${percentile(r.tts, 99)?.toFixed(1)} ms`,
  )
}
FliteTts.shutdown()
fake.stop()
