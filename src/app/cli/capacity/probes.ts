// In-process probes of one kind of call's heaviest work, at a given number of calls at once, on
// this machine's engines: the offline STT decoding every caller's speech at the pace it is
// spoken, and the TTS of workflow replies. They send nothing over the network.
import { monitorEventLoopDelay } from 'node:perf_hooks'
import type { AudioFrame } from '../../../realtime/voice/audio.ts'
import { drain } from '../../../realtime/voice/base.ts'
import { stt as voiceStt, type VoiceEngines } from '../../../realtime/voice/index.ts'
import { synthesizeAll } from '../../../realtime/voice/tts/contract.ts'
import type { Verdict } from './search.ts'

export interface ProbeGoals {
  /** A caller's speech decoded at most this far behind its words (the agent waits it out at the turn's end). */
  sttLagMs: number
  /** A workflow reply's audio ready within this. */
  replyMs: number
  /** The event loop's delay p99 (every call's SIP and HTTP wait it out). */
  loopLagMs: number
}

export const GOALS: ProbeGoals = { sttLagMs: 500, replyMs: 600, loopLagMs: 100 }

const FRAME_MS = 20
const REPLY = 'Thank you. Your table for two is booked for tomorrow at seven in the evening.'

/** Runs `work` while measuring the event loop's delay; its p99 in ms. */
async function withLoopLag<T>(work: () => Promise<T>): Promise<{ value: T; loopLagMs: number }> {
  const h = monitorEventLoopDelay({ resolution: 10 })
  h.enable()
  try {
    const value = await work()
    return { value, loopLagMs: h.percentile(99) / 1e6 }
  } finally {
    h.disable()
  }
}

/** 20 ms frames of `speech` without end, one caller's talking. */
function* frames(speech: AudioFrame): Generator<AudioFrame> {
  const n = (speech.sampleRate * FRAME_MS) / 1000
  for (let i = 0; ; i = (i + n) % (speech.samples.length - n)) yield { samples: speech.samples.subarray(i, i + n), sampleRate: speech.sampleRate }
}

/**
 * `calls` short utterances at once decoded to their end, so the decoders a count needs are made
 * (a model load each, 0.1-0.3 s, once in an appliance's life) before its window is timed.
 */
async function warmOfflineStt(engines: VoiceEngines, speech: AudioFrame, calls: number): Promise<void> {
  await Promise.all(
    Array.from({ length: calls }, async () => {
      const stream = engines.stt!.stream()
      const f = frames(speech)
      for (let ms = 0; ms < 500; ms += FRAME_MS) stream.push(f.next().value!)
      stream.end()
      await drain(stream)
    }),
  )
}

/** `calls` callers talk for `windowMs` at once, each frame when it is due; the worst lag of a decoder behind its caller at the end. */
export async function probeOfflineStt(engines: VoiceEngines, speech: AudioFrame, calls: number, windowMs: number, goals = GOALS): Promise<Verdict> {
  const stt = engines.stt as InstanceType<typeof voiceStt.PocketsphinxStt>
  await warmOfflineStt(engines, speech, calls)
  const { value: worstMs, loopLagMs } = await withLoopLag(async () => {
    const streams = Array.from({ length: calls }, () => ({ stream: stt.stream(), frames: frames(speech), pushedMs: 0 }))
    const start = performance.now()
    await new Promise<void>((resolve) => {
      const timer = setInterval(() => {
        const due = Math.min(windowMs, performance.now() - start)
        for (const s of streams) while (s.pushedMs + FRAME_MS <= due) (s.stream.push(s.frames.next().value!), (s.pushedMs += FRAME_MS))
        if (due >= windowMs) (clearInterval(timer), resolve())
      }, FRAME_MS)
    })
    // how far each decoder is behind the words now, the moment its caller would stop
    const worst = Math.max(...streams.map((s) => s.pushedMs - s.stream.decodedMs))
    for (const s of streams) s.stream.end()
    await Promise.all(streams.map((s) => drain(s.stream)))
    return worst
  })
  return verdict([['stt lag', worstMs, goals.sttLagMs], ['event-loop lag p99', loopLagMs, goals.loopLagMs]])
}

/** `calls` callers each get a workflow reply spoken every few seconds over `windowMs`; the p95 of the time until its audio is ready. */
export async function probeWorkflowTts(engines: VoiceEngines, calls: number, windowMs: number, goals = GOALS): Promise<Verdict> {
  const tts = engines.tts(8000)
  const everyMs = 3000
  const { value: p95, loopLagMs } = await withLoopLag(async () => {
    const took: number[] = []
    const start = performance.now()
    await Promise.all(
      Array.from({ length: calls }, async (_, i) => {
        // the callers' turns spread over the interval, as calls that did not start together
        let at = (everyMs * i) / calls
        do {
          const wait = start + at - performance.now()
          if (wait > 0) await new Promise((r) => setTimeout(r, wait))
          const t0 = performance.now()
          await synthesizeAll(tts, REPLY)
          took.push(performance.now() - t0)
          at += everyMs
        } while (at < windowMs)
      }),
    )
    took.sort((a, b) => a - b)
    return took[Math.min(took.length - 1, Math.floor(took.length * 0.95))]!
  })
  return verdict([['reply ready p95', p95, goals.replyMs], ['event-loop lag p99', loopLagMs, goals.loopLagMs]])
}

/** Holds when every figure is within its goal; names the first one past it (else the closest to it). */
function verdict(figures: [string, number, number][]): Verdict {
  const over = figures.find(([, v, goal]) => v > goal)
  const shown = over ?? figures.reduce((a, b) => (b[1] / b[2] > a[1] / a[2] ? b : a))
  return { holds: !over, figure: `${shown[0]} ${Math.round(shown[1])} ms (goal ${shown[2]} ms)` }
}
