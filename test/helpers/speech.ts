import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type AudioFrame, concatFrames, parseWav, rmsDbfs, writeWav } from '../../src/realtime/voice/audio.ts'
import { resample } from '../../src/realtime/voice/resample.ts'

/** Real speech made at test time with Debian's flite (16 kHz voices: kal16, slt, rms, awb). */
export function fliteSpeech(text: string, voice = 'kal16'): AudioFrame {
  const dir = mkdtempSync(join(tmpdir(), 'flite-'))
  try {
    const out = join(dir, 'speech.wav')
    const proc = Bun.spawnSync(['flite', '-voice', voice, '-t', text, '-o', out])
    if (proc.exitCode !== 0) throw new Error(`flite failed: ${proc.stderr.toString()}`)
    return parseWav(readFileSync(out))
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

/**
 * Real speech made at test time with Debian's espeak-ng (voices such as en-us, en-gb, en-us+f3
 * for a female variant) at `wordsPerMinute` (espeak-ng's default is 175). espeak-ng writes
 * 22.05 kHz; with `sampleRate` sox converts it (22050 has no small ratio to the phone rates).
 */
export function espeakSpeech(text: string, voice = 'en-us', wordsPerMinute = 175, sampleRate?: number): AudioFrame {
  const dir = mkdtempSync(join(tmpdir(), 'espeak-'))
  try {
    const out = join(dir, 'speech.wav')
    const proc = Bun.spawnSync(['espeak-ng', '-v', voice, '-s', String(wordsPerMinute), '-w', out, text])
    if (proc.exitCode !== 0) throw new Error(`espeak-ng failed: ${proc.stderr.toString()}`)
    if (!sampleRate) return parseWav(readFileSync(out))
    const converted = join(dir, 'converted.wav')
    const sox = Bun.spawnSync(['sox', out, '-r', String(sampleRate), converted])
    if (sox.exitCode !== 0) throw new Error(`sox failed: ${sox.stderr.toString()}`)
    return parseWav(readFileSync(converted))
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

export function silence(ms: number, sampleRate: number): AudioFrame {
  return { samples: new Int16Array(Math.round((ms * sampleRate) / 1000)), sampleRate }
}

/** Low-level noise, like an open phone line between words. */
export function noise(ms: number, sampleRate: number, amplitude = 60): AudioFrame {
  const n = Math.round((ms * sampleRate) / 1000)
  const samples = new Int16Array(n)
  let seed = 12345
  for (let i = 0; i < n; i++) {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff
    samples[i] = Math.round(((seed / 0x7fffffff) * 2 - 1) * amplitude)
  }
  return { samples, sampleRate }
}

/** Cuts audio into the 20 ms frames a call delivers. */
export function* frames20ms(audio: AudioFrame): Generator<AudioFrame> {
  const n = audio.sampleRate / 50
  for (let i = 0; i < audio.samples.length; i += n) {
    yield { samples: audio.samples.slice(i, Math.min(i + n, audio.samples.length)), sampleRate: audio.sampleRate }
  }
}

/** Loudness (dBFS) of consecutive windows of `windowSamples` samples. */
export function loudness(samples: Int16Array, windowSamples: number): number[] {
  const out: number[] = []
  for (let i = 0; i + windowSamples <= samples.length; i += windowSamples) out.push(rmsDbfs(samples.subarray(i, i + windowSamples)))
  return out
}

/** How many windows of `windowSamples` are louder than `dbfs`. */
export const loudWindows = (samples: Int16Array, windowSamples: number, dbfs: number) => loudness(samples, windowSamples).filter((db) => db > dbfs).length

/** Words of `heard` that differ from `said` (substituted, missing or extra: the edit distance over words). */
export function wordErrors(said: string, heard: string): number {
  const a = said.toLowerCase().split(/\s+/).filter(Boolean)
  const b = heard.toLowerCase().split(/\s+/).filter(Boolean)
  let row = Array.from({ length: b.length + 1 }, (_, j) => j)
  for (let i = 1; i <= a.length; i++) {
    const next = [i]
    for (let j = 1; j <= b.length; j++) next[j] = Math.min(row[j]! + 1, next[j - 1]! + 1, row[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1))
    row = next
  }
  return row[b.length]!
}

/** What a SIP phone plays into a call: `words` (flite) after `leadMs` of silence, then `tailMs` of silence while the agent answers, as an 8 kHz WAV. */
export function phoneMicrophone(words: string, leadMs: number, tailMs: number): Uint8Array {
  const audio = concatFrames([silence(leadMs, 16000), fliteSpeech(words), silence(tailMs, 16000)])
  return writeWav({ samples: resample(audio.samples, 16000, 8000), sampleRate: 8000 })
}
