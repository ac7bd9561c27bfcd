// Answering-machine and person greetings made at test time: flite and espeak-ng voices, a
// beep from sox, joined at 16 kHz; also as the 8 kHz u-law WAV SIPp's rtp_stream plays.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseWav, writeWav } from '../../src/realtime/voice/audio.ts'

export interface GreetingSpec {
  text: string
  /** flite:<voice> or espeak:<voice> */
  voice: string
  beepHz?: number
  /** Silence before the greeting (the callee lifting the phone) and after it. */
  leadMs?: number
  tailMs?: number
}

function run(cmd: string[]): void {
  const p = Bun.spawnSync(cmd)
  if (p.exitCode !== 0) throw new Error(`${cmd[0]} failed: ${p.stderr.toString()}`)
}

const silence16k = (ms: number) => new Int16Array(Math.round(ms * 16))

/** The greeting as 16 kHz mono samples. */
export function greeting(spec: GreetingSpec): Int16Array {
  const dir = mkdtempSync(join(tmpdir(), 'greeting-'))
  try {
    const raw = join(dir, 'raw.wav')
    const [engine, voice] = spec.voice.split(':') as [string, string]
    if (engine === 'flite') run(['flite', '-voice', voice, '-t', spec.text, '-o', raw])
    else run(['espeak-ng', '-v', voice, '-w', raw, spec.text])
    const speech16 = join(dir, 'speech16.wav')
    run(['sox', raw, '-r', '16000', '-c', '1', '-b', '16', speech16])
    const parts = [silence16k(spec.leadMs ?? 300), parseWav(readFileSync(speech16)).samples]
    if (spec.beepHz) {
      const beep = join(dir, 'beep.wav')
      run(['sox', '-n', '-r', '16000', '-c', '1', '-b', '16', beep, 'synth', '0.45', 'sine', String(spec.beepHz), 'vol', '0.4'])
      parts.push(silence16k(400), parseWav(readFileSync(beep)).samples)
    }
    parts.push(silence16k(spec.tailMs ?? 4000))
    const out = new Int16Array(parts.reduce((n, p) => n + p.length, 0))
    let off = 0
    for (const p of parts) {
      out.set(p, off)
      off += p.length
    }
    return out
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

/** Writes the greeting as an 8 kHz u-law WAV (what SIPp's rtp_stream plays as PCMU). */
export function greetingWavForSipp(spec: GreetingSpec, dir: string, name: string): string {
  const pcm16 = join(dir, `${name}-16k.wav`)
  writeFileSync(pcm16, writeWav({ samples: greeting(spec), sampleRate: 16000 }))
  const out = join(dir, `${name}.wav`)
  run(['sox', pcm16, '-r', '8000', '-c', '1', '-e', 'u-law', out])
  return out
}

export const HUMAN_GREETINGS: GreetingSpec[] = [
  { text: 'Hello?', voice: 'flite:kal16' },
  { text: 'Hi.', voice: 'flite:slt' },
  { text: 'Yes?', voice: 'flite:rms' },
  { text: 'Hello, who is this?', voice: 'flite:awb' },
  { text: 'Hey.', voice: 'espeak:en-us' },
  { text: 'Speaking.', voice: 'espeak:en-gb' },
  { text: 'Hello, Dana here.', voice: 'flite:slt', leadMs: 900 },
  { text: 'Hello?', voice: 'espeak:en+f3', leadMs: 1500 },
  { text: 'Yeah, hello.', voice: 'flite:kal' },
  { text: 'Good morning.', voice: 'espeak:en-us+m3' },
  { text: 'Hi there.', voice: 'flite:rms', leadMs: 600 },
  { text: 'Hello, this is Sam.', voice: 'espeak:en-gb-scotland' },
]

export const MACHINE_GREETINGS: GreetingSpec[] = [
  { text: 'Hi, you have reached the voicemail of John Smith. I cannot come to the phone right now. Please leave a message after the tone.', voice: 'flite:kal16', beepHz: 1000 },
  { text: 'The person you are calling is not available. Please leave your message after the beep.', voice: 'flite:slt', beepHz: 850 },
  { text: 'Hello, this is Maria. Sorry I missed your call. Leave your name and number and I will call you back.', voice: 'flite:rms' },
  { text: 'You have reached Acme Dental. Our office is closed. Please call again during business hours.', voice: 'flite:awb', beepHz: 1400 },
  { text: 'Hey, it is Chris. Leave a message.', voice: 'espeak:en-us', beepHz: 1000 },
  { text: 'Thank you for calling. Nobody is available to take your call. Please record your message at the tone.', voice: 'espeak:en-gb', beepHz: 440 },
  { text: 'Hi, this is the Johnson family. We are not home right now, so leave a message.', voice: 'espeak:en+f3' },
  { text: 'Your call has been forwarded to an automated voice messaging system.', voice: 'flite:kal', beepHz: 1000 },
  { text: 'Hello. You have reached 415 555 0123. Please leave a message.', voice: 'espeak:en-us+m3', beepHz: 950 },
  { text: 'This is Dr. Lee. I am with a patient. Please leave a detailed message and I will return your call.', voice: 'flite:slt', leadMs: 800 },
  { text: 'Sorry, I cannot answer right now.', voice: 'flite:kal16', beepHz: 1000 },
  { text: 'The mailbox of extension two hundred is full. Goodbye.', voice: 'espeak:en-gb-scotland' },
]
