// The engines that speak the corpus, each to 16 kHz mono PCM: festival (one process per voice
// for all of its utterances, as text2wave would do one at a time), espeak-ng (one run each) and
// SVOX Pico (in process). Variants are the base voice's clip through a sox effect.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseWav, writeWav } from '../../../src/realtime/voice/audio.ts'
import { resample } from '../../../src/realtime/voice/resample.ts'
import { picoSpeech } from './pico.ts'
import type { BaseVoice, VariantVoice } from './voices.ts'

export const WIDE_RATE = 16000

const toWide = (wav: Uint8Array) => {
  const a = parseWav(wav)
  return resample(a.samples, a.sampleRate, WIDE_RATE)
}

async function run(cmd: string[]): Promise<void> {
  const p = Bun.spawn(cmd, { stdout: 'ignore', stderr: 'pipe' })
  const [code, err] = await Promise.all([p.exited, new Response(p.stderr).text()])
  if (code !== 0) throw new Error(`${cmd[0]} failed (${code}): ${err.slice(0, 500)}`)
}

/** Runs `jobs` with at most `width` at a time. */
export async function pool<T>(items: readonly T[], width: number, job: (item: T, i: number) => Promise<void>): Promise<void> {
  let next = 0
  await Promise.all(Array.from({ length: Math.min(width, items.length) }, async () => {
    while (next < items.length) {
      const i = next++
      await job(items[i]!, i)
    }
  }))
}

const scheme = (s: string) => `"${s.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`

/** Every text in one festival process: (voice_<name>), then each utterance saved as a WAV. */
async function festival(voice: string, texts: readonly string[], dir: string): Promise<Int16Array[]> {
  const lines = [`(voice_${voice})`]
  texts.forEach((t, i) => lines.push(`(set! u (Utterance Text ${scheme(t)}))`, '(utt.synth u)', `(utt.save.wave u ${scheme(join(dir, `${i}.wav`))} 'riff)`))
  const script = join(dir, 'speak.scm')
  writeFileSync(script, `${lines.join('\n')}\n`)
  await run(['festival', '-b', script])
  return texts.map((_, i) => toWide(readFileSync(join(dir, `${i}.wav`))))
}

async function espeak(voice: string, texts: readonly string[], dir: string, width: number): Promise<Int16Array[]> {
  const out: Int16Array[] = []
  await pool(texts, width, async (t, i) => {
    const [file, wide] = [join(dir, `${i}.wav`), join(dir, `${i}.16k.wav`)]
    await run(['espeak-ng', '-v', voice, '-w', file, t])
    // espeak-ng writes 22.05 kHz, which has no small ratio to 16 kHz
    await run(['sox', '-R', '-D', file, '-r', String(WIDE_RATE), wide])
    out[i] = toWide(readFileSync(wide))
  })
  return out
}

async function pico(language: string, texts: readonly string[]): Promise<Int16Array[]> {
  const out: Int16Array[] = []
  // Pico's own volume markup keeps its loud output off the clipping point
  for (const t of texts) out.push(await picoSpeech(`<volume level='50'>${t.replace(/[<>]/g, ' ')}</volume>`, language as 'en-US' | 'en-GB'))
  return out
}

/** Each text spoken by `voice`, 16 kHz, untrimmed. */
export async function speakAll(voice: BaseVoice, texts: readonly string[], width = 2): Promise<Int16Array[]> {
  const dir = mkdtempSync(join(tmpdir(), `understanding-${voice.id}-`))
  try {
    if (voice.engine === 'festival') return await festival(voice.voice, texts, dir)
    if (voice.engine === 'espeak') return await espeak(voice.voice, texts, dir, width)
    return await pico(voice.voice, texts)
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

/** The base voice's clips through the variant's sox effect (tempo keeps the pitch, pitch the tempo). */
export async function variantOf(variant: VariantVoice, clips: readonly Int16Array[], width = 2): Promise<Int16Array[]> {
  const dir = mkdtempSync(join(tmpdir(), `understanding-${variant.id}-`))
  const out: Int16Array[] = []
  try {
    await pool(clips, width, async (clip, i) => {
      const [from, to] = [join(dir, `${i}.in.wav`), join(dir, `${i}.out.wav`)]
      writeFileSync(from, writeWav({ samples: clip, sampleRate: WIDE_RATE }))
      await run(['sox', '-R', '-D', from, to, variant.effect[0], String(variant.effect[1])])
      out[i] = parseWav(readFileSync(to)).samples
    })
    return out
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

/**
 * The phone band: every clip through one sox run (sinc 300-3400, rate 8k) with a second of
 * silence between them, then cut apart again; the filter is linear, so each clip comes out as if
 * it had its own run, and one process replaces thousands.
 */
export async function phoneBand(clips: readonly Int16Array[]): Promise<Int16Array[]> {
  const GUARD = WIDE_RATE
  const starts: number[] = []
  let total = GUARD
  for (const c of clips) (starts.push(total), (total += c.length + GUARD))
  const all = new Int16Array(total)
  clips.forEach((c, i) => all.set(c, starts[i]!))
  const dir = mkdtempSync(join(tmpdir(), 'understanding-phone-'))
  try {
    const [from, to] = [join(dir, 'wide.wav'), join(dir, 'phone.wav')]
    writeFileSync(from, writeWav({ samples: all, sampleRate: WIDE_RATE }))
    await run(['sox', '-R', '-D', from, to, 'sinc', '300-3400', 'rate', '8k'])
    const phone = parseWav(readFileSync(to)).samples
    return clips.map((c, i) => phone.slice(starts[i]! / 2, (starts[i]! + c.length) / 2))
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

/** Drops the engine's silence before and after the words, keeping 100 ms either side. */
export function trimSilence(pcm: Int16Array, rate: number): Int16Array {
  const n = rate / 50
  const levels: number[] = []
  for (let i = 0; i + n <= pcm.length; i += n) {
    let s = 0
    for (let j = i; j < i + n; j++) s += pcm[j]! * pcm[j]!
    levels.push(Math.sqrt(s / n))
  }
  const floor = Math.max(...levels, 0) * 10 ** (-45 / 20)
  const first = levels.findIndex((l) => l > floor)
  if (first < 0) return pcm.slice()
  let last = levels.length - 1
  while (last > first && levels[last]! <= floor) last--
  return pcm.slice(Math.max(0, first - 5) * n, Math.min(levels.length, last + 6) * n)
}
