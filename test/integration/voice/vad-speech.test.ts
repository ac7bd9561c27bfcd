import { beforeAll, describe, expect, test } from 'bun:test'
import { type AudioFrame, concatFrames } from '../../../src/realtime/voice/audio.ts'
import { resample } from '../../../src/realtime/voice/resample.ts'
import { createVadStream, EnergyVad, SileroVad, type VadEvent, type VadModel } from '../../../src/realtime/voice/vad/index.ts'
import { fliteSpeech, frames20ms, noise, silence } from '../../helpers/speech.ts'

const params = { startThreshold: 0.5, stopThreshold: 0.35, minSpeechMs: 100, minSilenceMs: 500 }

/** 600 ms line noise, an utterance, 1200 ms noise, another utterance, 1000 ms noise. */
let timeline: AudioFrame
let first: AudioFrame
let second: AudioFrame
beforeAll(() => {
  first = fliteSpeech('Hello, I would like to book a table for two people tonight.')
  second = fliteSpeech('Yes, at eight o clock please.')
  timeline = concatFrames([noise(600, 16000), first, noise(1200, 16000), second, noise(1000, 16000)])
})

async function decisions(model: VadModel, audio: AudioFrame): Promise<Extract<VadEvent, { type: 'speech_start' | 'speech_end' }>[]> {
  const stream = createVadStream(model, params)
  const out: Extract<VadEvent, { type: 'speech_start' | 'speech_end' }>[] = []
  const reading = (async () => {
    for await (const ev of stream) {
      if (ev.type === 'error') throw ev.error
      if (ev.type === 'speech_start' || ev.type === 'speech_end') out.push(ev)
    }
  })()
  for (const f of frames20ms(audio)) stream.push(f)
  stream.end()
  await reading
  return out
}

/** Where the waveform is audibly non-silent, in ms from the clip's start. */
function voicedSpan(a: AudioFrame): [number, number] {
  const loud = (i: number) => Math.abs(a.samples[i]!) > 300
  let s = 0
  while (s < a.samples.length && !loud(s)) s++
  let e = a.samples.length - 1
  while (e > s && !loud(e)) e--
  return [(s * 1000) / a.sampleRate, (e * 1000) / a.sampleRate]
}

function expectTwoUtterances(found: Awaited<ReturnType<typeof decisions>>, endSlackMs = 400) {
  const ms = (a: AudioFrame) => (a.samples.length * 1000) / a.sampleRate
  expect(found.map((d) => d.type)).toEqual(['speech_start', 'speech_end', 'speech_start', 'speech_end'])
  const offsets = [600, 600 + ms(first) + 1200]
  ;[first, second].forEach((clip, k) => {
    const [on, off] = voicedSpan(clip).map((t) => t + offsets[k]!) as [number, number]
    expect(found[2 * k]!.atMs).toBeGreaterThan(on - 100)
    expect(found[2 * k]!.atMs).toBeLessThan(on + 300)
    expect(found[2 * k + 1]!.atMs).toBeGreaterThan(off - 400)
    expect(found[2 * k + 1]!.atMs).toBeLessThan(off + endSlackMs)
  })
  const end = found[3]!
  if (end.type !== 'speech_end') throw new Error('unreachable')
  expect(end.decidedAtMs - end.atMs).toBeGreaterThanOrEqual(params.minSilenceMs)
}

describe('VAD on real speech synthesized with flite', () => {
  test('Silero v5 finds both utterances at 16 kHz and nothing in the line noise', async () => {
    const silero = await SileroVad.load()
    expectTwoUtterances(await decisions(silero, timeline))
  })

  test('Silero v5 finds both utterances on 8 kHz phone audio', async () => {
    const silero = await SileroVad.load()
    const phone = { samples: resample(timeline.samples, 16000, 8000), sampleRate: 8000 }
    // at 8 kHz Silero scores the onset of white line noise as briefly voiced (~300 ms)
    expectTwoUtterances(await decisions(silero, phone), 650)
  })

  test('the energy fallback finds both utterances in clean audio', async () => {
    expectTwoUtterances(await decisions(new EnergyVad(), timeline))
  })

  test('Silero ignores a loud tone that fools the energy VAD', async () => {
    const hum: AudioFrame = { samples: new Int16Array(16000 * 2), sampleRate: 16000 }
    for (let i = 0; i < hum.samples.length; i++) hum.samples[i] = Math.round(6000 * Math.sin((2 * Math.PI * 1000 * i) / 16000))
    const audio = concatFrames([silence(300, 16000), hum, silence(800, 16000)])
    expect((await decisions(await SileroVad.load(), audio)).length).toBe(0)
    expect((await decisions(new EnergyVad(), audio)).map((d) => d.type)).toEqual(['speech_start', 'speech_end'])
  })

  test('a missing model file is a clear error naming the file', async () => {
    await expect(SileroVad.load('models/vad/missing.onnx')).rejects.toThrow(/Silero VAD model not found at models\/vad\/missing.onnx/)
  })

  test('a frame at a rate Silero cannot run ends the stream with an error event', async () => {
    const stream = createVadStream(await SileroVad.load(), params)
    stream.push({ samples: new Int16Array(441), sampleRate: 22050 })
    stream.end()
    const events = []
    for await (const ev of stream) events.push(ev)
    expect(events.length).toBe(1)
    expect(events[0]!.type).toBe('error')
  })
})

test('progress counts only voiced time: the silence that ends an utterance does not add to speechMs (barge-in reads it)', async () => {
  const rate = 16000
  const burst = new Int16Array(rate / 2) // 500 ms of a loud tone
  for (let i = 0; i < burst.length; i++) burst[i] = Math.round(8000 * Math.sin((2 * Math.PI * 440 * i) / rate))
  const stream = createVadStream(new EnergyVad(), params)
  const speechMs: number[] = []
  const reading = (async () => {
    for await (const ev of stream) if (ev.type === 'progress' && ev.speaking) speechMs.push(ev.speechMs)
  })()
  for (const f of frames20ms(concatFrames([silence(300, rate), { samples: burst, sampleRate: rate }, silence(1000, rate)]))) stream.push(f)
  stream.end()
  await reading
  expect(Math.max(...speechMs)).toBeGreaterThanOrEqual(440)
  expect(Math.max(...speechMs)).toBeLessThanOrEqual(540)
})

describe('Silero scoring of many calls at once', () => {
  test('windows of several calls scored in one batched run get the probabilities each call gets alone', async () => {
    const vad = await SileroVad.load()
    const audios = [first, second, timeline].map((a) => a.samples)
    const windows = (samples: Int16Array, k: number) => Float32Array.from(samples.subarray(k * 512, (k + 1) * 512), (v) => v / 32768)
    const rounds = 40
    const alone: number[][] = []
    for (const samples of audios) {
      const scorer = vad.scorer(16000)
      const probs: number[] = []
      for (let k = 0; k < rounds; k++) probs.push(await scorer.score(windows(samples, k)))
      alone.push(probs)
    }
    const scorers = audios.map(() => vad.scorer(16000))
    const together: number[][] = audios.map(() => [])
    for (let k = 0; k < rounds; k++) {
      const got = await Promise.all(scorers.map((s, i) => s.score(windows(audios[i]!, k))))
      got.forEach((p, i) => together[i]!.push(p))
    }
    expect(Math.max(...alone.flat())).toBeGreaterThan(0.5) // there is speech in there
    together.forEach((probs, i) => probs.forEach((p, k) => expect(p).toBeCloseTo(alone[i]![k]!, 5)))
  })
})
