// Platform-added latency of whole call sessions: from the VAD's end-of-speech decision to the
// first agent audio, at 1, 20 and 50 concurrent calls. Everything on the platform side is real:
// RTP over UDP on 127.0.0.1 through the media engine (jitter buffer, G.711, 8 <-> 16 kHz, the
// shared media clock, recordings), Silero VAD, flite TTS in its worker threads, the OpenAI
// adapter over HTTP. The far side runs in a second process: one phone per call talking PCMU
// and the zero-delay fake OpenAI LLM; STT is a scripted in-process engine (no network).
// Two figures per turn, from the same run:
//   handoff: decision -> the session hands its first frame to CallMedia.play()
//   rtp:     decision -> the phone receives the first agent RTP packet (marker bit)
// Also CPU per talking call (this process only: platform, VAD, TTS workers, media).
// Run: bun run scripts/bench/voice-session.ts [N ...]   (default 1 20 50)
import { llmBrain } from '../../src/voice/brain/index.ts'
import { mkdtempSync, rmSync } from 'node:fs'
import { loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { MediaEngine } from '../../src/media/index.ts'
import { CODEC_DEFAULTS } from '../../src/telephony/sdp/index.ts'
import { OpenAiLlm } from '../../src/voice/llm/index.ts'
import { VoiceSession } from '../../src/voice/session/index.ts'
import { FliteTts } from '../../src/voice/tts/index.ts'
import { DEFAULT_BARGE_IN, percentile } from '../../src/voice/turn/index.ts'
import { SileroVad } from '../../src/voice/vad/index.ts'
import { ScriptedStt } from '../../test/helpers/scripted-engines.ts'
import { baseAgent } from '../../test/unit/voice/session/timeline.ts'
import { CALLER_TURNS, PAUSE_MS } from './voice-script.ts'
import { FarEnd } from './voice-far-end-client.ts'

const RATE = 16000
const LEAD_MS = 6000
const counts = process.argv.slice(2).map(Number).filter((n) => n > 0)
const Ns = counts.length ? counts : [1, 20, 50]
/** Marked packets closer than this belong to one reply (the media marks a resumed talkspurt too). */
const SAME_REPLY_MS = 200

const far = await FarEnd.start()
const silero = await SileroVad.load()
const llm = new OpenAiLlm({ baseUrl: far.url, apiKey: 'sk', model: 'bench', conn: { maxRetries: 0, timeoutMs: 10_000, retryIntervalMs: 1 } })
const tts = new FliteTts({ voice: 'kal16', sampleRate: RATE, workers: Number(process.env.BENCH_FLITE_WORKERS ?? 1) })
const utteranceMs = 3000 // upper bound of the caller's sentence; only sizes the run

interface Figures {
  handoff: number[]
  rtp: number[]
  llm: number[]
  tts: number[]
  resumedTalkspurts: number
  unmatched: number
  cpuPerCallPct: number
  seconds: number
}

async function run(calls: number): Promise<Figures> {
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-voice-'))
  const engine = new MediaEngine({ RTP_PORT_MIN: 34000, RTP_PORT_MAX: 35999, DATA_DIR: dataDir, RECORD_CALLS: process.env.BENCH_RECORD !== '0' }, { bindHost: '127.0.0.1' })
  await engine.start()
  const ports = await Promise.all(Array.from({ length: calls }, () => engine.allocatePorts()))
  // calls start talking at random moments of the first seconds, as real calls would
  const leadMs = calls === 1 ? 500 : LEAD_MS
  const leads = ports.map(() => Math.round(Math.random() * leadMs))
  const peerPorts = await far.open(ports.map((p) => p.port), leads)
  const t0 = performance.now()
  const now = () => performance.now() - t0
  const legs = await Promise.all(
    ports.map(async (bound, i) => {
      const spurts: number[] = []
      const chats: number[] = []
      let lastSend = -Infinity
      const leg = { spurts, chats, session: undefined as unknown as VoiceSession }
      // notes when each reply's LLM request starts, to tell which talkspurt answers which turn
      const tracedLlm = Object.assign(Object.create(llm) as OpenAiLlm, { chat: (req: Parameters<OpenAiLlm['chat']>[0]) => (chats.push(now()), llm.chat(req)) })
      const media = await engine.startCall(
        `bench_${i}`,
        bound,
        { remoteAddress: '127.0.0.1', remotePort: peerPorts[i]!, remoteRtcpPort: peerPorts[i]!, rtcpMux: true, codec: CODEC_DEFAULTS.PCMU, ptimeMs: 20, direction: 'sendrecv', remoteHold: false },
        {
          onAudio: (frame) => {
            leg.session.pushAudio({ samples: frame, sampleRate: RATE })
            leg.session.tick()
          },
        },
      )
      leg.session = new VoiceSession({
        engines: { vad: silero, stt: new ScriptedStt(Array(CALLER_TURNS).fill('check my order')), tts },
        brain: llmBrain(tracedLlm, { ...baseAgent, firstSpeaker: 'user', silenceTimeoutMs: 60_000 }),
        settings: {
          vad: { startThreshold: 0.5, stopThreshold: 0.35, minSpeechMs: 100, minSilenceMs: 400 },
          endpointing: { maxFinalWaitMs: 1500, useInterimOnTimeout: true },
          bargeIn: { ...DEFAULT_BARGE_IN },
        },
        agent: { ...baseAgent, firstSpeaker: 'user', silenceTimeoutMs: 60_000 },
        hooks: {
          send: (f) => {
            const t = now()
            if (t - lastSend > SAME_REPLY_MS) spurts.push(t)
            lastSend = t
            media.play(f.samples)
          },
          hangup: () => {},
        },
        sampleRate: RATE,
        now,
      })
      leg.session.start()
      return leg
    }),
  )
  const cpu0 = process.cpuUsage()
  far.startTalking()
  // the calls last as long as the callers' script: this is the load window, not a synchronisation
  await new Promise((r) => setTimeout(r, leadMs + CALLER_TURNS * (utteranceMs + PAUSE_MS) + 500))
  const cpu = process.cpuUsage(cpu0)
  const seconds = now() / 1000
  const arrivals = await far.stop()
  const f: Figures = { handoff: [], rtp: [], llm: [], tts: [], resumedTalkspurts: 0, unmatched: 0, cpuPerCallPct: 0, seconds }
  const absOf = (sessionMs: number) => performance.timeOrigin + t0 + sessionMs
  legs.forEach((leg, i) => {
    leg.session.callerHungUp()
    const turns = leg.session.report().turns
    const wire: number[] = []
    for (const at of arrivals[i]!) {
      if (wire.length && at - wire[wire.length - 1]! < SAME_REPLY_MS) f.resumedTalkspurts++
      else wire.push(at)
    }
    turns.forEach((t, j) => {
      if (t.voiceToVoiceMs === undefined || t.endpointingMs === undefined) return
      const platform = t.voiceToVoiceMs! - t.endpointingMs!
      f.handoff.push(platform)
      if (t.llmTtftMs !== undefined) f.llm.push(t.llmTtftMs)
      if (t.ttsTtfbMs !== undefined) f.tts.push(t.ttsTtfbMs)
      const firstFrame = leg.spurts.find((s) => s >= leg.chats[j]!)
      const decidedAt = firstFrame === undefined ? NaN : absOf(firstFrame - platform)
      const arrived = wire.find((a) => a >= decidedAt)
      if (arrived === undefined) f.unmatched++
      else f.rtp.push(arrived - decidedAt)
    })
  })
  await engine.stop()
  rmSync(dataDir, { recursive: true, force: true })
  f.cpuPerCallPct = ((cpu.user + cpu.system) / 1000 / (seconds * 1000) / calls) * 100
  return f
}

const fmt = (xs: number[]) => `p50 ${percentile(xs, 50)?.toFixed(1)} p99 ${percentile(xs, 99)?.toFixed(1)} max ${Math.max(...xs).toFixed(1)} ms`
console.log('## end-of-speech decision -> first agent audio (platform-added, zero-delay fakes), per turn')
console.log(`flite workers ${process.env.BENCH_FLITE_WORKERS ?? 1}; recording ${process.env.BENCH_RECORD === '0' ? 'off' : 'on'}; machine: 2 shared cores, load average per row`)
/** One call gives three turns a run: repeat it so that its p99 is not just the worst of three. */
async function runMerged(calls: number): Promise<Figures> {
  const r = await run(calls)
  for (let i = 1; i < (calls === 1 ? 4 : 1); i++) {
    const more = await run(calls)
    for (const k of ['handoff', 'rtp', 'llm', 'tts'] as const) r[k].push(...more[k])
    r.resumedTalkspurts += more.resumedTalkspurts
    r.unmatched += more.unmatched
    r.cpuPerCallPct = (r.cpuPerCallPct * i + more.cpuPerCallPct) / (i + 1)
    r.seconds += more.seconds
  }
  return r
}

for (const calls of Ns) {
  const load0 = loadavg()[0]!.toFixed(2)
  const r = await runMerged(calls)
  console.log(
    `${calls} calls, ${r.handoff.length} turns (load ${load0} -> ${loadavg()[0]!.toFixed(2)}):\n` +
      `  rtp     (first RTP packet at the phone): ${fmt(r.rtp)}${r.unmatched ? ` (${r.unmatched} unmatched)` : ''}\n` +
      `  handoff (first frame to CallMedia):      ${fmt(r.handoff)}\n` +
      `  within: LLM first token ${fmt(r.llm)}; TTS first audio ${fmt(r.tts)}\n` +
      `  CPU ${r.cpuPerCallPct.toFixed(2)}% of a core per talking call (${r.seconds.toFixed(1)} s); replies resumed after a gap: ${r.resumedTalkspurts}`,
  )
}
FliteTts.shutdown()
await far.exit()
