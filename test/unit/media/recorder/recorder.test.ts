import { describe, expect, test } from 'bun:test'
import { readFileSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { parseWavHeader, repairWavFiles, StereoRecorder, wavHeader } from '../../../../src/realtime/media/recorder/index.ts'
import { OutputQueue } from '../../../../src/realtime/media/call/index.ts'
import { FadeConcealer } from '../../../../src/realtime/media/call/index.ts'
import { readStereoWav } from '../../../helpers/media-call.ts'
import { until } from '../../../helpers/until.ts'
import { tempDir } from '../../../helpers/tmp.ts'

const tmp = () => tempDir('rec-')

describe('StereoRecorder', () => {
  test('interleaves caller left and agent right sample for sample and finalises the header at close', async () => {
    const path = join(tmp(), 'a.wav')
    const rec = await StereoRecorder.create(path, 16000, 20)
    for (let i = 0; i < 10; i++) {
      rec.writeLeft(new Int16Array(320).fill(i + 1))
      rec.writeRight(new Int16Array(320).fill(-(i + 1)))
    }
    // Before close the header still says 0 bytes (a crash leaves it to the start-up repair).
    expect(parseWavHeader(new Uint8Array(readFileSync(path)).subarray(0, 44))?.dataBytes).toBe(0)
    const { durationMs } = await rec.close()
    expect(durationMs).toBe(200)
    const { left, right, sampleRate } = readStereoWav(path)
    expect(sampleRate).toBe(16000)
    expect(left.length).toBe(3200)
    expect([left[0], right[0], left[3199], right[3199], left[320], right[320]]).toEqual([1, -1, 10, -10, 2, -2])
    expect(statSync(path).size).toBe(44 + 3200 * 4)
  })

  test('a recording written over many flushes (each buffer reused once its write is done) holds every frame in order', async () => {
    const path = join(tmp(), 'many.wav')
    const rec = await StereoRecorder.create(path, 16000, 20)
    for (let i = 0; i < 30; i++) {
      rec.writeLeft(new Int16Array(320).fill(i + 1))
      rec.writeRight(new Int16Array(320).fill(-(i + 1)))
      await until(() => statSync(path).size >= 44 + (i + 1) * 320 * 4) // this frame's write landed
    }
    await rec.close()
    const { left, right } = readStereoWav(path)
    expect(left.length).toBe(30 * 320)
    for (let i = 0; i < 30; i++) expect([left[i * 320], left[i * 320 + 319], right[i * 320], right[i * 320 + 319]]).toEqual([i + 1, i + 1, -(i + 1), -(i + 1)])
  })

  test('a channel that fell behind is padded with silence at close, keeping the other one aligned', async () => {
    const path = join(tmp(), 'b.wav')
    const rec = await StereoRecorder.create(path)
    rec.writeLeft(new Int16Array(640).fill(5))
    rec.writeRight(new Int16Array(320).fill(7))
    await rec.close()
    const { left, right } = readStereoWav(path)
    expect(left.length).toBe(640)
    expect([right[319], right[320], right[639]]).toEqual([7, 0, 0])
  })

  test('refuses to overwrite an existing recording', async () => {
    const path = join(tmp(), 'c.wav')
    writeFileSync(path, 'x')
    await expect(StereoRecorder.create(path)).rejects.toThrow()
  })
})

describe('WAV repair at start-up', () => {
  test('fixes the sizes of a recording a crash left with a provisional header, cutting a torn last frame', async () => {
    const dir = tmp()
    const crashed = join(dir, 'crashed.wav')
    const fine = join(dir, 'fine.wav')
    writeFileSync(crashed, Buffer.concat([Buffer.from(wavHeader(16000, 2, 0)), Buffer.alloc(4 * 1000 + 3, 1)]))
    writeFileSync(fine, Buffer.concat([Buffer.from(wavHeader(16000, 2, 8)), Buffer.alloc(8)]))
    writeFileSync(join(dir, 'notes.wav'), 'not a wav at all, just text that is long enough for a header....')
    expect(await repairWavFiles(dir)).toEqual([crashed])
    const head = parseWavHeader(new Uint8Array(readFileSync(crashed)).subarray(0, 44))
    expect(head).toEqual({ sampleRate: 16000, channels: 2, dataBytes: 4000 })
    expect(statSync(crashed).size).toBe(44 + 4000)
    expect(new DataView(readFileSync(crashed).buffer).getUint32(4, true)).toBe(36 + 4000)
    expect(await repairWavFiles(dir)).toEqual([])
    expect(await repairWavFiles(join(dir, 'missing'))).toEqual([])
  })
})

describe('OutputQueue', () => {
  test('reads across items, pads with silence and reports playedMs per item', async () => {
    const q = new OutputQueue(16000)
    const a = q.enqueue(new Int16Array(480).fill(1))
    const b = q.enqueue(new Int16Array(480).fill(2))
    const out = new Int16Array(320)
    expect(q.read(out)).toBe(320)
    expect(a.playedMs).toBe(20)
    expect(q.read(out)).toBe(320)
    expect([out[0], out[159], out[160], out[319]]).toEqual([1, 1, 2, 2])
    expect(await a.done).toEqual({ playedMs: 30, interrupted: false })
    expect(q.flush()).toEqual([{ playedMs: 10, interrupted: true }])
    expect(await b.done).toEqual({ playedMs: 10, interrupted: true })
    expect(q.read(out)).toBe(0)
    expect(out.every((x) => x === 0)).toBe(true)
    expect(await q.enqueue(new Int16Array(0)).done).toEqual({ playedMs: 0, interrupted: false })
  })
})

describe('FadeConcealer', () => {
  test('repeats the last good audio fading to silence within 60 ms', () => {
    const c = new FadeConcealer(8000, 60)
    c.good(new Int16Array(160).fill(1000))
    const first = c.conceal(160)
    expect(first[0]).toBe(1000)
    expect(first[159]!).toBeLessThan(1000)
    c.conceal(160)
    const third = c.conceal(160)
    expect(Math.abs(third[159]!)).toBeLessThanOrEqual(5)
    expect(c.conceal(160).every((x) => x === 0)).toBe(true)
  })
})
