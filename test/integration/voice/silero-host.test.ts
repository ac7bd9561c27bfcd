// Silero runs in a host process of its own (src/realtime/voice/vad/silero-host.ts): the scores must not
// depend on which host computed them, a dead host is replaced without the stream noticing, and
// no host outlives its use.
import { beforeAll, describe, expect, test } from 'bun:test'
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { AudioFrame } from '../../../src/realtime/voice/audio.ts'
import { BUNDLED_SILERO_MODEL } from '../../../src/platform/embedded/index.ts'
import { SileroVad } from '../../../src/realtime/voice/vad/index.ts'
import { SileroHostProcess } from '../../../src/realtime/voice/vad/silero-process.ts'
import { fliteSpeech, noise } from '../../helpers/speech.ts'
import { untilAsync } from '../../helpers/until.ts'

const alive = (pid: number) => {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

/** The 512-sample windows of a clip, as floats. */
function windows(a: AudioFrame): Float32Array[] {
  const out: Float32Array[] = []
  for (let at = 0; at + 512 <= a.samples.length; at += 512) out.push(Float32Array.from(a.samples.subarray(at, at + 512), (s) => s / 32768))
  return out
}

let clip: Float32Array[]
beforeAll(() => {
  const speech = fliteSpeech('Hello, I would like to book a table for two people tonight.')
  const quiet = noise(500, 16000)
  const samples = new Int16Array(quiet.samples.length + speech.samples.length)
  samples.set(quiet.samples)
  samples.set(speech.samples, quiet.samples.length)
  clip = windows({ samples, sampleRate: 16000 })
})

async function scores(vad: SileroVad, each?: (i: number) => Promise<void>): Promise<number[]> {
  const scorer = vad.scorer(16000)
  const out: number[] = []
  for (let i = 0; i < clip.length; i++) {
    await each?.(i)
    out.push(await scorer.score(clip[i]!))
  }
  return out
}

describe('the Silero host process', () => {
  test('a host killed mid-stream is replaced and every later window scores exactly as without the kill', async () => {
    const vad = await SileroVad.load(BUNDLED_SILERO_MODEL, { idleReleaseMs: 0 })
    try {
      const plain = await scores(vad)
      expect(Math.max(...plain)).toBeGreaterThan(0.9)
      expect(Math.min(...plain.slice(0, 10))).toBeLessThan(0.1)
      const pids = new Set<number>()
      const killed = await scores(vad, async (i) => {
        if (i !== 20 && i !== 40) return
        const pid = (await vad.hostPid())!
        pids.add(pid)
        process.kill(pid, 'SIGKILL')
        await untilAsync(async () => !alive(pid), 5000, 'the host to die')
      })
      expect(killed).toEqual(plain)
      pids.add((await vad.hostPid())!)
      expect(pids.size).toBe(3)
    } finally {
      await vad.close()
    }
  })

  test('streams scored in the same turn share one run and keep their own state', async () => {
    const vad = await SileroVad.load(BUNDLED_SILERO_MODEL, { idleReleaseMs: 0 })
    try {
      const alone = await scores(vad)
      const a = vad.scorer(16000)
      const b = vad.scorer(16000)
      const quiet = new Float32Array(512)
      const both: number[] = []
      for (const w of clip) both.push((await Promise.all([a.score(w), b.score(quiet)]))[0]!)
      // batching changes the float summation order in places; the decisions it feeds are unaffected
      both.forEach((p, i) => expect(p).toBeCloseTo(alone[i]!, 4))
    } finally {
      await vad.close()
    }
  })

  test('the host ends after the idle time, and the next window starts another', async () => {
    const vad = await SileroVad.load(BUNDLED_SILERO_MODEL, { idleReleaseMs: 300 })
    const first = (await vad.hostPid())!
    await untilAsync(async () => !vad.loaded && !alive(first), 5000, 'the idle host to end')
    const scorer = vad.scorer(16000)
    expect(await scorer.score(clip[0]!)).toBeLessThan(0.5)
    const second = (await vad.hostPid())!
    expect(second).not.toBe(first)
    const release = vad.hold()
    await Bun.sleep(600) // longer than the idle time: the hold must keep the host
    expect(alive(second)).toBe(true)
    release()
    await untilAsync(async () => !alive(second), 5000, 'the host to end once let go')
  })

  test('when no host can start, windows are scored by loudness and the VAD says why, instead of failing the call', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'silero-gone-'))
    const model = join(dir, 'silero.onnx')
    copyFileSync(BUNDLED_SILERO_MODEL, model)
    const vad = await SileroVad.load(model, { idleReleaseMs: 0 })
    try {
      const scorer = vad.scorer(16000)
      expect(vad.problem()).toBeUndefined()
      rmSync(model)
      process.kill((await vad.hostPid())!, 'SIGKILL')
      const loud = Float32Array.from({ length: 512 }, (_, i) => 0.5 * Math.sin(i / 4))
      expect(await scorer.score(loud)).toBe(1)
      expect(await scorer.score(new Float32Array(512))).toBe(0)
      expect(vad.problem()).toMatch(/Silero host could not run .*no such file|ENOENT/i)
      expect(vad.loaded).toBe(false)
    } finally {
      await vad.close()
      rmSync(dir, { recursive: true })
    }
  })

  test('closed, the VAD ends its host at once and starts no other for a late window', async () => {
    const vad = await SileroVad.load(BUNDLED_SILERO_MODEL, { idleReleaseMs: 0 })
    const scorer = vad.scorer(16000)
    const pid = (await vad.hostPid())!
    vad.close()
    await expect(scorer.score(clip[0]!)).rejects.toThrow(/closed/)
    await untilAsync(async () => !alive(pid), 5000, 'the closed host to end')
    expect(vad.loaded).toBe(false)
  })

  test('a host nobody sends to ends by itself (a call worker terminated without closing it)', async () => {
    const host = await SileroHostProcess.start(BUNDLED_SILERO_MODEL, 1000)
    expect(host.alive).toBe(true)
    await untilAsync(async () => !alive(host.pid), 5000, 'the unused host to exit')
    await expect(host.run(1, 576, 16000, () => {}, () => {})).rejects.toThrow(/Silero host exited/)
  })

  test('a model the runtime cannot load is refused with the runtime reason', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'silero-bad-'))
    const bad = join(dir, 'not-a-model.onnx')
    writeFileSync(bad, 'this is not an onnx model')
    try {
      await expect(SileroVad.load(bad)).rejects.toThrow(/Silero could not be loaded: .*(protobuf|parse|model)/i)
    } finally {
      rmSync(dir, { recursive: true })
    }
  })
})
