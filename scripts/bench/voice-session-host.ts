// The talking calls of the voice benchmark on one media engine: on the benchmark's own thread
// (the in-process path) or, loaded as a worker, in a thread of its own with its own media
// clock and Silero VAD and flite shared with the main thread, as a call worker carries its
// calls. Driven by voice-session.ts.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { MediaEngine, type BoundPorts } from '../../src/realtime/media/index.ts'
import { loopbackPcmu } from '../../test/helpers/loopback-media.ts'
import { llmBrain } from '../../src/realtime/voice/brain/index.ts'
import { OpenAiLlm } from '../../src/realtime/voice/llm/index.ts'
import { VoiceSession } from '../../src/realtime/voice/session/index.ts'
import { useSharedEngines } from '../../src/realtime/voice/index.ts'
import { FliteTts } from '../../src/realtime/voice/tts/index.ts'
import { DEFAULT_BARGE_IN } from '../../src/realtime/voice/turn/index.ts'
import { SileroVad } from '../../src/realtime/voice/vad/index.ts'
import { ScriptedStt } from '../../test/helpers/scripted-engines.ts'
import { baseAgent } from '../../test/unit/voice/session/timeline.ts'
import { CALLER_TURNS } from './voice-script.ts'

const RATE = 16000
/** Marked packets closer than this belong to one reply (the media marks a resumed talkspurt too). */
export const SAME_REPLY_MS = 200

export interface TurnFigures {
  handoff: number[]
  rtp: number[]
  llm: number[]
  tts: number[]
  resumedTalkspurts: number
  unmatched: number
}

interface Leg {
  spurts: number[]
  chats: number[]
  session: VoiceSession
}

export class VoiceHost {
  private engine?: MediaEngine
  private dataDir = ''
  private ports: BoundPorts[] = []
  private legs: Leg[] = []
  private t0 = 0
  private deps?: { silero: SileroVad; llm: OpenAiLlm; tts: FliteTts }

  async open(calls: number, rtp: { min: number; max: number }, llmUrl: string): Promise<number[]> {
    this.deps ??= {
      silero: await SileroVad.load(),
      llm: new OpenAiLlm({ baseUrl: llmUrl, apiKey: 'sk', model: 'bench', conn: { maxRetries: 0, timeoutMs: 10_000, retryIntervalMs: 1 } }),
      tts: new FliteTts({ voice: 'kal16', sampleRate: RATE, workers: Number(process.env.BENCH_FLITE_WORKERS ?? 2) }),
    }
    this.dataDir = mkdtempSync(join(tmpdir(), 'bench-voice-'))
    this.engine = new MediaEngine({ RTP_PORT_MIN: rtp.min, RTP_PORT_MAX: rtp.max, DATA_DIR: this.dataDir, RECORD_CALLS: process.env.BENCH_RECORD !== '0' }, { bindHost: '127.0.0.1' })
    await this.engine.start()
    this.ports = await Promise.all(Array.from({ length: calls }, () => this.engine!.allocatePorts()))
    return this.ports.map((p) => p.port)
  }

  /** Starts every call's session; session time 0 is `t0Abs` (ms since the epoch, shared by all threads). */
  async start(peerPorts: number[], t0Abs: number): Promise<void> {
    this.t0 = t0Abs - performance.timeOrigin
    const now = () => performance.now() - this.t0
    const { silero, llm, tts } = this.deps!
    this.legs = await Promise.all(
      this.ports.map(async (bound, i) => {
        let lastSend = -Infinity
        const leg = { spurts: [] as number[], chats: [] as number[], session: undefined as unknown as VoiceSession }
        // notes when each reply's LLM request starts, to tell which talkspurt answers which turn
        const tracedLlm = Object.assign(Object.create(llm) as OpenAiLlm, { chat: (req: Parameters<OpenAiLlm['chat']>[0]) => (leg.chats.push(now()), llm.chat(req)) })
        const media = await this.engine!.startCall(
          `bench_${bound.port}`,
          bound,
          loopbackPcmu(peerPorts[i]!, { telephoneEvent: undefined }),
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
              if (t - lastSend > SAME_REPLY_MS) leg.spurts.push(t)
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
  }

  /** Ends the calls; `arrivals` are the phones' first-packet times (ms since the epoch) per call. */
  async finish(arrivals: number[][]): Promise<TurnFigures> {
    const f: TurnFigures = { handoff: [], rtp: [], llm: [], tts: [], resumedTalkspurts: 0, unmatched: 0 }
    const absOf = (sessionMs: number) => performance.timeOrigin + this.t0 + sessionMs
    this.legs.forEach((leg, i) => {
      leg.session.callerHungUp()
      const wire: number[] = []
      for (const at of arrivals[i]!) {
        if (wire.length && at - wire[wire.length - 1]! < SAME_REPLY_MS) f.resumedTalkspurts++
        else wire.push(at)
      }
      leg.session.report().turns.forEach((t, j) => {
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
    await this.engine!.stop()
    rmSync(this.dataDir, { recursive: true, force: true })
    this.legs = []
    return f
  }
}

type Request =
  | { id: number; cmd: 'open'; calls: number; rtp: { min: number; max: number }; llmUrl: string; flite: MessagePort[] }
  | { id: number; cmd: 'start'; peerPorts: number[]; t0Abs: number }
  | { id: number; cmd: 'finish'; arrivals: number[][] }

declare const self: Worker
if (!Bun.isMainThread) {
  const host = new VoiceHost()
  self.onmessage = async (ev: MessageEvent<Request>) => {
    const m = ev.data
    if (m.cmd === 'open') useSharedEngines({ flite: m.flite })
    const value = m.cmd === 'open' ? await host.open(m.calls, m.rtp, m.llmUrl) : m.cmd === 'start' ? await host.start(m.peerPorts, m.t0Abs) : await host.finish(m.arrivals)
    self.postMessage({ id: m.id, value })
  }
  // messages posted before a worker's module graph has loaded are lost: the host says when it listens
  self.postMessage({ id: 0, value: 'listening' })
}
