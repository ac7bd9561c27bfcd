// baresip (Debian package) as a real SIP phone: it plays a WAV file as its microphone and
// records what it hears into another WAV, and reports call progress on stdout.
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { writeWav } from '../../src/realtime/voice/audio.ts'
import { resample } from '../../src/realtime/voice/resample.ts'

export interface BaresipPhone {
  dir: string
  /** The RTP ports baresip may use, [first, last]: its media is the UDP to and from them. */
  rtpPorts: [number, number]
  /** What baresip heard (mono WAV at the codec's rate, written by its sndfile module); call after the call. */
  heardPath(): string
  output(): string
  /** Resolves true once stdout contains `text`, false if baresip exits first. */
  saw(text: string): Promise<boolean>
  stop(): Promise<void>
}

export interface BaresipOptions {
  codecs?: string[]
  timeoutSec?: number
  extraConfig?: string[]
  /** Account parameters after the address, e.g. `;mediaenc=srtp-mand` (the srtp module is loaded with any mediaenc). */
  account?: string
}

/**
 * Starts baresip dialling `target` (a sip: URI). `microphone` is the WAV it sends (8 kHz mono
 * matches G.711 without resampling). `codecs` are the codec modules loaded (default g711.so).
 */
export function dialWithBaresip(target: string, microphone: Uint8Array, opts: BaresipOptions = {}): BaresipPhone {
  return startBaresip('caller', microphone, ['sip_listen 127.0.0.1:0'], opts, ['-e', `/dial ${target}`])
}

/** A baresip that answers the first call at once, listening on UDP/TCP `sipPort` and TLS `sipPort + 1` (its own rule). */
export interface AnsweringBaresip extends BaresipPhone {
  sipPort: number
  tlsPort: number
}

/** `tls` is the PEM certificate and key files it serves TLS with; `user` the Request-URI user it answers (baresip refuses others). */
export function answerWithBaresip(microphone: Uint8Array, tls: { certPath: string; keyPath: string }, opts: BaresipOptions & { user: string }): AnsweringBaresip {
  // below the kernel's ephemeral ports (32768+) and apart from the RTP ranges of the tests
  const sipPort = 26000 + 2 * Math.floor(Math.random() * 1500)
  const pemDir = mkdtempSync(join(tmpdir(), 'baresip-cert-'))
  writeFileSync(join(pemDir, 'both.pem'), readFileSync(tls.certPath, 'utf8') + readFileSync(tls.keyPath, 'utf8'))
  const phone = startBaresip(opts.user, microphone, [`sip_listen 127.0.0.1:${sipPort}`, `sip_certificate ${join(pemDir, 'both.pem')}`], { ...opts, account: `;answermode=auto${opts.account ?? ''}` }, [])
  return {
    ...phone,
    sipPort,
    tlsPort: sipPort + 1,
    async stop() {
      await phone.stop()
      rmSync(pemDir, { recursive: true, force: true })
    },
  }
}

/** A self-signed certificate for 127.0.0.1 in `dir` (cert.pem, key.pem), for TLS listeners in tests. */
export function selfSignedLoopbackCert(dir: string): { certPath: string; keyPath: string } {
  const certPath = join(dir, 'cert.pem')
  const keyPath = join(dir, 'key.pem')
  const gen = Bun.spawnSync(['openssl', 'req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1', '-keyout', keyPath, '-out', certPath])
  if (gen.exitCode !== 0) throw new Error(gen.stderr.toString())
  return { certPath, keyPath }
}

function startBaresip(user: string, microphone: Uint8Array, listen: string[], opts: BaresipOptions, args: string[]): BaresipPhone {
  const dir = mkdtempSync(join(tmpdir(), 'baresip-phone-'))
  writeFileSync(join(dir, 'mic.wav'), microphone)
  writeFileSync(join(dir, 'accounts'), `<sip:${user}@127.0.0.1>;regint=0${opts.account ?? ''}\n`)
  const rtpBase = 31000 + 2 * Math.floor(Math.random() * 400)
  const srtp = opts.account?.includes('mediaenc=') ? ['module srtp.so'] : []
  writeFileSync(
    join(dir, 'config'),
    [
      ...listen, 'module_path /usr/lib/baresip/modules', ...(opts.codecs ?? ['g711.so']).map((m) => `module ${m}`), ...srtp,
      'module aufile.so', 'module sndfile.so', `snd_path ${dir}`, 'module account.so', 'module menu.so', `audio_player aufile,${join(dir, 'none.wav')}`, `audio_source aufile,${join(dir, 'mic.wav')}`,
      `audio_alert aufile,${join(dir, 'alert.wav')}`, `rtp_ports ${rtpBase}-${rtpBase + 20}`, ...(opts.extraConfig ?? []), '',
    ].join('\n'),
  )
  const proc = Bun.spawn(['baresip', '-f', dir, '-t', String(opts.timeoutSec ?? 30), ...args], { stdout: 'pipe', stderr: 'pipe' })
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
    rtpPorts: [rtpBase, rtpBase + 21],
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
