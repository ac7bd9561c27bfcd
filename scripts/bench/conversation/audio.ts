// The caller's audio, made offline at 8 kHz (the phone's rate): flite and espeak-ng voices, and
// recorded human speech from SIPp's g711a.pcap; pauses and the line between turns are low noise.
import { rmsDbfs } from '../../../src/realtime/voice/audio.ts'
import { resample } from '../../../src/realtime/voice/resample.ts'
import { sippHumanSpeech } from '../../../test/helpers/pcap.ts'
import { espeakSpeech, fliteSpeech } from '../../../test/helpers/speech.ts'
import type { CallerStep, Piece, Voice } from './script.ts'

export const RATE = 8000
export const FRAME = 160
/** A 20 ms frame above this level is voiced, in both directions (flite's near-silent onset is below it). */
export const VOICED_DBFS = -40
const NOISE_AMPLITUDE = 40

export const frameDbfs = (pcm: Int16Array) => rmsDbfs(pcm)

/** Line noise (about -61 dBFS) from a seeded generator, so every run sends the same bytes. */
export function lineNoise(samples: number, seed = 1): Int16Array {
  const out = new Int16Array(samples)
  let s = seed
  for (let i = 0; i < samples; i++) {
    s = (s * 1103515245 + 12345) & 0x7fffffff
    out[i] = Math.round(((s / 0x7fffffff) * 2 - 1) * NOISE_AMPLITUDE)
  }
  return out
}

let recording: Int16Array | undefined

/** SIPp's g711a.pcap (PCMA, a person speaking for about 6 s) as 8 kHz PCM. */
function recordedSpeech(): Int16Array {
  return (recording ??= sippHumanSpeech())
}

function speak(text: string, voice: Voice): Int16Array {
  const audio = voice.engine === 'flite' ? fliteSpeech(text, voice.voice) : voice.engine === 'espeak' ? espeakSpeech(text, voice.voice, voice.wpm, RATE) : undefined
  if (!audio) throw new Error('a recording has no words to say')
  return trimSilence(resample(audio.samples, audio.sampleRate, RATE))
}

/** Drops the synthesiser's silence before and after the words (the pauses are the script's). */
function trimSilence(pcm: Int16Array): Int16Array {
  const frames = Math.floor(pcm.length / FRAME)
  const voiced = (f: number) => frameDbfs(pcm.subarray(f * FRAME, (f + 1) * FRAME)) > VOICED_DBFS - 10
  let first = 0
  while (first < frames && !voiced(first)) first++
  let last = frames - 1
  while (last > first && !voiced(last)) last--
  return pcm.slice(first * FRAME, (last + 1) * FRAME)
}

function piece(p: Piece, voice: Voice): { words: Int16Array; pause: Int16Array } {
  const words = p.recording ? recordedSpeech().slice((p.recording[0] * RATE) / 1000, (p.recording[1] * RATE) / 1000) : p.say ? speak(p.say, voice) : new Int16Array(0)
  return { words, pause: new Int16Array(Math.round(((p.pauseMs ?? 0) * RATE) / 1000)) }
}

export interface StepAudio {
  /** 20 ms frames at 8 kHz, line noise mixed in. */
  frames: Int16Array[]
  /** When each word of the step's transcript begins, ms after its first voiced frame (spread evenly over its piece). */
  wordStartsMs: number[]
}

export function stepAudio(step: CallerStep, seed: number): StepAudio {
  const parts = step.pieces.map((p) => piece(p, step.voice))
  const total = Math.ceil(parts.reduce((n, p) => n + p.words.length + p.pause.length, 0) / FRAME) * FRAME
  const pcm = lineNoise(total, seed)
  const starts: number[] = []
  let at = 0
  parts.forEach((p, i) => {
    const text = step.pieces[i]!.say ?? step.pieces[i]!.words ?? ''
    const n = text.split(' ').filter(Boolean).length
    for (let w = 0; w < n; w++) starts.push(((at + (w * p.words.length) / n) * 1000) / RATE)
    for (let j = 0; j < p.words.length; j++) pcm[at + j] = Math.max(-32768, Math.min(32767, pcm[at + j]! + p.words[j]!))
    at += p.words.length + p.pause.length
  })
  const frames: Int16Array[] = []
  for (let i = 0; i < total; i += FRAME) frames.push(pcm.subarray(i, i + FRAME))
  const firstVoiced = frames.findIndex((f) => frameDbfs(f) > VOICED_DBFS) * 20
  return { frames, wordStartsMs: starts.map((s) => Math.max(0, Math.round(s - firstVoiced))) }
}
