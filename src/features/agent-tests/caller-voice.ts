// The test caller's voice: an offline engine other than the agent's speaks each line to 16 kHz
// PCM, optionally through a phone-band filter (sox) and with white noise at a set SNR.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseWav, resample } from '../../realtime/voice/index.ts'
import type { CallerVoice } from './agent-tests.model.ts'

export const CALLER_RATE = 16000

async function run(cmd: string[]): Promise<void> {
  const p = Bun.spawn(cmd, { stdout: 'ignore', stderr: 'pipe' })
  const [code, err] = await Promise.all([p.exited, new Response(p.stderr).text()])
  if (code !== 0) throw new Error(`${cmd[0]} failed (${code}): ${err.slice(0, 300)}`)
}

function engineCommand(voice: CallerVoice, text: string, out: string): string[] {
  const v = voice.voice
  if (voice.engine === 'espeak-ng') return ['espeak-ng', '-v', v ?? 'en-us', '-w', out, text]
  if (voice.engine === 'flite') return ['flite', '-voice', v ?? 'rms', '-t', text, '-o', out]
  return ['sh', '-c', `printf '%s' "$1" | text2wave -eval "(voice_$2)" -o "$3"`, 'text2wave', text, v ?? 'kal_diphone', out]
}

/** A line of the caller, spoken: 16 kHz mono PCM. */
export async function speakAsCaller(voice: CallerVoice, text: string): Promise<Int16Array> {
  const dir = mkdtempSync(join(tmpdir(), 'agent-test-voice-'))
  try {
    const raw = join(dir, 'raw.wav')
    await run(engineCommand(voice, text, raw))
    // espeak-ng writes 22.05 kHz, which has no small ratio to 16 kHz: sox resamples every engine
    const file = join(dir, 'line.wav')
    await run(['sox', '-R', '-D', raw, '-r', voice.phoneBand ? '8000' : String(CALLER_RATE), file, ...(voice.phoneBand ? ['sinc', '300-3400'] : [])])
    const wav = parseWav(new Uint8Array(readFileSync(file)))
    const pcm = resample(wav.samples, wav.sampleRate, CALLER_RATE)
    return voice.noiseSnrDb === undefined ? pcm : withNoise(pcm, voice.noiseSnrDb, text.length)
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

/** Pure: white noise at `snrDb` below the speech's power, from a seeded generator (same line, same noise). */
export function withNoise(pcm: Int16Array, snrDb: number, seed: number): Int16Array {
  let power = 0
  for (const s of pcm) power += s * s
  power /= pcm.length || 1
  const amplitude = Math.sqrt(power / 10 ** (snrDb / 10)) * Math.sqrt(3)
  let state = (seed * 2654435761) >>> 0 || 1
  const out = new Int16Array(pcm.length)
  for (let i = 0; i < pcm.length; i++) {
    state ^= state << 13
    state ^= state >>> 17
    state ^= state << 5
    const noise = ((state >>> 0) / 0xffffffff) * 2 - 1
    out[i] = Math.max(-32768, Math.min(32767, Math.round(pcm[i]! + noise * amplitude)))
  }
  return out
}
