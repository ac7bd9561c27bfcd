// Barge-in on the phone line: SIPp's recorded human speech (G.711 A-law, decoded here), flite's
// "uh-huh" and pink noise from sox, each with the line's hiss under it, upsampled to the
// session's 16 kHz as a G.711 call's media does, spoken 1.5 s into a long welcome. The VAD is
// Silero: its scores of each clip are computed first, then replayed window by window, so the
// session runs on a frame clock (one caller frame and one tick per 20 ms of virtual time) and
// the machine's speed moves nothing.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { llmBrain } from '../../../src/realtime/voice/brain/index.ts'
import { type AudioFrame, rmsDbfs, VOICED_DBFS } from '../../../src/realtime/voice/audio.ts'
import { resample } from '../../../src/realtime/voice/resample.ts'
import { VoiceSession } from '../../../src/realtime/voice/session/index.ts'
import { DEFAULT_BARGE_IN } from '../../../src/realtime/voice/turn/index.ts'
import { SileroVad, type VadModel } from '../../../src/realtime/voice/vad/index.ts'
import { sippHumanSpeech } from '../../helpers/pcap.ts'
import { ScriptedLlm, ScriptedStt, ToneTts } from '../../helpers/scripted-engines.ts'
import { fliteSpeech } from '../../helpers/speech.ts'
import { baseAgent } from '../../unit/voice/session/timeline.ts'

const RATE = 16000
const FRAME = RATE / 50
/** The caller's clip starts this far into the call, 1.5 s into the welcome (which starts within a frame or two). */
const CALLER_AT_MS = 1560
/** The welcome: 50 ms of tone per character, about 11 s. */
const WELCOME = 'Welcome to Acme Dental. We are open from nine to five on weekdays and from ten to two on Saturdays, and we offer cleanings, fillings and crowns.'

let silero: SileroVad
beforeAll(async () => {
  silero = await SileroVad.load()
})
afterAll(() => silero.close())

/** Pink noise at `dbfs` from sox (repeatable), 8 kHz. */
function pinkNoise(seconds: number, dbfs: number): Int16Array {
  const p = Bun.spawnSync(['sox', '-R', '-D', '-n', '-r', '8000', '-b', '16', '-c', '1', '-e', 'signed', '-t', 'raw', '-', 'synth', String(seconds), 'pinknoise'])
  if (p.exitCode !== 0) throw new Error(`sox failed: ${p.stderr.toString()}`)
  const raw = new Int16Array(new Uint8Array(p.stdout).buffer)
  const gain = 10 ** ((dbfs - rmsDbfs(raw)) / 20)
  return raw.map((v) => Math.max(-32768, Math.min(32767, Math.round(v * gain))))
}

/** The line's own hiss (about -58 dBFS), seeded. */
function withHiss(pcm8: Int16Array, lead: number): Int16Array {
  const out = new Int16Array(lead + pcm8.length + 8000 * 6)
  let s = 7
  for (let i = 0; i < out.length; i++) {
    s = (s * 1103515245 + 12345) & 0x7fffffff
    const v = (i >= lead ? (pcm8[i - lead] ?? 0) : 0) + Math.round(((s / 0x7fffffff) * 2 - 1) * 40)
    out[i] = Math.max(-32768, Math.min(32767, v))
  }
  return out
}

/** Silero's score of every window of `pcm`, replayed in order by a model that answers at once. */
async function replayedSilero(pcm: Int16Array): Promise<VadModel> {
  const w = silero.windowSamples(RATE)
  const scorer = silero.scorer(RATE)
  const scores: number[] = []
  for (let i = 0; (i + 1) * w <= pcm.length; i++) scores.push(await scorer.score(Float32Array.from(pcm.subarray(i * w, (i + 1) * w), (v) => v / 32768)))
  return {
    name: 'silero-v5',
    capabilities: silero.capabilities,
    windowSamples: (rate) => silero.windowSamples(rate),
    scorer: () => {
      let next = 0
      return { score: () => scores[next++] ?? 0 }
    },
  }
}

interface Heard {
  /** When the caller's first loud frame was sent, ms. */
  firstLoudAt: number
  /** When each agent frame left, and whether it was loud. */
  agent: { atMs: number; loud: boolean }[]
  session: VoiceSession
  /** When the caller's first turn was committed (the agent may answer from then on). */
  turnAt: number
}

/** The welcome, and the caller's `clip8` (8 kHz) from CALLER_AT_MS on. */
async function callOver(clip8: Int16Array, words: string, untilMs: number, onsetDbfs?: number): Promise<Heard> {
  const lead = CALLER_AT_MS / 20
  const line8 = withHiss(clip8, lead * 160)
  const caller = resample(line8, 8000, RATE)
  const vad = await replayedSilero(caller)
  let now = 0
  const media: AudioFrame[] = []
  const agent: Heard['agent'] = []
  const agentProfile = { ...baseAgent, firstSpeaker: 'agent' as const, welcomeMessage: WELCOME, silenceTimeoutMs: 60_000 }
  const session = new VoiceSession({
    engines: { vad, stt: new ScriptedStt([words]), tts: new ToneTts(RATE) },
    brain: llmBrain(new ScriptedLlm([{ text: 'Sure.' }]), agentProfile),
    settings: { vad: { startThreshold: 0.5, stopThreshold: 0.35, minSpeechMs: 100, minSilenceMs: 400 }, endpointing: { maxFinalWaitMs: 1500, useInterimOnTimeout: true }, bargeIn: { ...DEFAULT_BARGE_IN, onsetDbfs } },
    agent: agentProfile,
    hooks: { send: (f) => media.push(f), flush: () => media.splice(0).length * 20, hangup: () => {}, turn: () => (turnAt ??= now) },
    sampleRate: RATE,
    lineRateHz: 8000,
    now: () => now,
  })
  session.start()
  let welcomeAt: number | undefined
  let turnAt: number | undefined
  let firstLoudAt = Number.POSITIVE_INFINITY
  for (let k = 0; now < untilMs; k++) {
    now += 20
    let samples = caller.slice(k * FRAME, (k + 1) * FRAME)
    if (samples.length < FRAME) samples = new Int16Array(FRAME)
    // loud in the clip, as the benches count it: the words, not the hiss under them
    const clean = k >= lead ? clip8.subarray((k - lead) * 160, (k - lead + 1) * 160) : new Int16Array(0)
    if (firstLoudAt === Number.POSITIVE_INFINITY && clean.length && rmsDbfs(clean) > VOICED_DBFS) firstLoudAt = now
    session.pushAudio({ samples, sampleRate: RATE })
    session.tick()
    const out = media.shift()
    if (out) {
      const loud = rmsDbfs(out.samples) > VOICED_DBFS
      if (loud) welcomeAt ??= now
      agent.push({ atMs: now, loud })
    }
    for (let i = 0; i < 3; i++) await new Promise((r) => setImmediate(r))
  }
  // the caller came in 1.5 s into the welcome
  expect(CALLER_AT_MS - welcomeAt!).toBeGreaterThanOrEqual(1500)
  return { firstLoudAt, agent, session, turnAt: turnAt ?? now }
}

/** The agent's last loud frame before `toMs`. */
const lastLoudBefore = (h: Heard, fromMs: number, toMs: number) => h.agent.filter((a) => a.loud && a.atMs < toMs).at(-1)?.atMs ?? fromMs
/** Loud agent frames in [from, to). */
const loudBetween = (h: Heard, from: number, to: number) => h.agent.filter((a) => a.loud && a.atMs >= from && a.atMs < to).length

/** Loud frames of the whole welcome, in a call where the caller says nothing. */
let welcomeFrames = 0

describe('barge-in on a phone line', () => {
  beforeAll(async () => {
    welcomeFrames = loudBetween(await callOver(new Int16Array(8000), '', 15_000), 0, 15_000)
  }, 60_000)

  test("SIPp's recorded human speech stops the welcome within 250 ms of the caller's first loud frame, and it does not play on", async () => {
    const h = await callOver(sippHumanSpeech(), 'could you tell me about the opening hours please', 9000)
    expect(Number.isFinite(h.firstLoudAt)).toBe(true)
    // the agent may answer once the caller's first turn is in (at a pause 3 s into the words)
    const speechEnd = h.turnAt
    expect(speechEnd - h.firstLoudAt).toBeGreaterThan(2000)
    const stop = lastLoudBefore(h, h.firstLoudAt, speechEnd)
    expect(stop - h.firstLoudAt).toBeLessThanOrEqual(250)
    // held once and then stopped: not a frame of the welcome after the hold
    expect(loudBetween(h, stop + 20, speechEnd)).toBe(0)
    expect(h.session.report().welcome).toBe('barged_in')
  }, 60_000)

  test('with BARGE_IN_ONSET_DBFS at 0 only Silero holds the welcome, once the voice is strong: well after the first loud frame', async () => {
    const h = await callOver(sippHumanSpeech(), 'could you tell me about the opening hours please', 6000, 0)
    expect(lastLoudBefore(h, h.firstLoudAt, h.turnAt) - h.firstLoudAt).toBeGreaterThan(500)
  }, 60_000)

  test('"uh-huh" over the welcome holds it at most briefly, and it plays to its last word', async () => {
    const uhHuh = fliteSpeech('uh-huh')
    const h = await callOver(resample(uhHuh.samples, uhHuh.sampleRate, 8000), 'uh-huh', 15_000)
    const r = h.session.report()
    expect(r.welcome).toBe('spoken')
    expect(r.transcript.filter((i) => i.role === 'agent').map((i) => i.text)).toEqual([WELCOME])
    // every frame of the welcome went out (as in a call where the caller is silent), none lost to the hold
    expect(loudBetween(h, 0, 15_000)).toBe(welcomeFrames)
  }, 60_000)

  test('two seconds of pink noise at -35 dBFS do not stop the welcome, nor hold it for a second', async () => {
    const h = await callOver(pinkNoise(2, -35), '', 15_000)
    const r = h.session.report()
    expect(r.welcome).toBe('spoken')
    expect(loudBetween(h, 0, 15_000)).toBe(welcomeFrames)
    // the longest gap in the welcome while the noise was on
    const loud = h.agent.filter((a) => a.loud).map((a) => a.atMs)
    const gaps = loud.slice(1).map((t, i) => t - loud[i]!)
    expect(Math.max(...gaps)).toBeLessThan(1000)
    // held once at most: once found steady, the noise holds it no more
    expect(gaps.filter((g) => g >= 200).length).toBeLessThanOrEqual(1)
  }, 60_000)
})
