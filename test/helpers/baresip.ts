// baresip (Debian package) as a real SIP phone: it plays a WAV file as its microphone and
// records what it hears into another WAV, and reports call progress on stdout.
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { writeWav } from '../../src/realtime/voice/audio.ts'
import { resample } from '../../src/realtime/voice/resample.ts'

export interface BaresipPhone {
  dir: string
  /** What baresip heard (mono WAV at the codec's rate, written by its sndfile module); call after the call. */
  heardPath(): string
  output(): string
  /** Resolves true once stdout contains `text`, false if baresip exits first. */
  saw(text: string): Promise<boolean>
  stop(): Promise<void>
}

/**
 * Starts baresip dialling `target` (a sip: URI). `microphone` is the WAV it sends (8 kHz mono
 * matches G.711 without resampling). `codecs` are the codec modules loaded (default g711.so).
 */
export function dialWithBaresip(target: string, microphone: Uint8Array, opts: { codecs?: string[]; timeoutSec?: number; extraConfig?: string[] } = {}): BaresipPhone {
  const dir = mkdtempSync(join(tmpdir(), 'baresip-phone-'))
  writeFileSync(join(dir, 'mic.wav'), microphone)
  writeFileSync(join(dir, 'accounts'), '<sip:caller@127.0.0.1>;regint=0\n')
  const rtpBase = 31000 + 2 * Math.floor(Math.random() * 400)
  writeFileSync(
    join(dir, 'config'),
    [
      'sip_listen 127.0.0.1:0', 'module_path /usr/lib/baresip/modules', ...(opts.codecs ?? ['g711.so']).map((m) => `module ${m}`),
      'module aufile.so', 'module sndfile.so', `snd_path ${dir}`, 'module account.so', 'module menu.so', `audio_player aufile,${join(dir, 'none.wav')}`, `audio_source aufile,${join(dir, 'mic.wav')}`,
      `audio_alert aufile,${join(dir, 'alert.wav')}`, `rtp_ports ${rtpBase}-${rtpBase + 20}`, ...(opts.extraConfig ?? []), '',
    ].join('\n'),
  )
  const proc = Bun.spawn(['baresip', '-f', dir, '-t', String(opts.timeoutSec ?? 30), '-e', `/dial ${target}`], { stdout: 'pipe', stderr: 'pipe' })
  let out = ''
  const waiting: Array<{ text: string; res: (ok: boolean) => void }> = []
  const pump = (async () => {
    const decoder = new TextDecoder()
    for await (const chunk of proc.stdout) {
      out += decoder.decode(chunk)
      for (const w of [...waiting]) if (out.includes(w.text)) waiting.splice(waiting.indexOf(w), 1), w.res(true)
    }
    for (const w of waiting) w.res(false)
  })()
  return {
    dir,
    heardPath() {
      const dec = readdirSync(dir).filter((f) => f.endsWith('-dec.wav'))
      if (dec.length !== 1) throw new Error(`expected one decoded-audio dump in ${dir}, found ${readdirSync(dir).join(', ')}`)
      return join(dir, dec[0]!)
    },
    output: () => out,
    saw: (text) => (out.includes(text) ? Promise.resolve(true) : new Promise<boolean>((res) => waiting.push({ text, res }))),
    async stop() {
      proc.kill()
      await proc.exited
      await pump
      rmSync(dir, { recursive: true, force: true })
    },
  }
}

/** A 48 kHz stereo WAV (what baresip's file source needs for Opus) from mono samples at `rate`. */
export function opusMicrophone(mono: Int16Array, rate: number): Uint8Array {
  const up = rate === 48000 ? mono : resample(mono, rate, 48000)
  const stereo = new Int16Array(up.length * 2)
  for (let i = 0; i < up.length; i++) stereo[2 * i] = stereo[2 * i + 1] = up[i]!
  const wav = writeWav({ samples: stereo, sampleRate: 48000 })
  const header = new DataView(wav.buffer, wav.byteOffset)
  header.setUint16(22, 2, true) // channels
  header.setUint32(28, 48000 * 4, true) // byte rate
  header.setUint16(32, 4, true) // block align
  return wav
}
