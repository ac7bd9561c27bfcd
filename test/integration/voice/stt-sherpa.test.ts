import { afterAll, describe, expect, test } from 'bun:test'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type AudioFrame, concatFrames } from '../../../src/realtime/voice/audio.ts'
import { drain } from '../../../src/realtime/voice/base.ts'
import { resample } from '../../../src/realtime/voice/resample.ts'
import { ConfigError, loadConfig } from '../../../src/platform/config/index.ts'
import { createVoiceEngines } from '../../../src/realtime/voice/index.ts'
import { SHERPA_LAYOUTS, SherpaOnnxStt, type SttEvent, sherpaRuntime } from '../../../src/realtime/voice/stt/index.ts'
import { SileroVad } from '../../../src/realtime/voice/vad/index.ts'
import { ENERGY_WORD, writeEnergyTransducer } from '../../helpers/sherpa-models.ts'
import { fliteSpeech, frames20ms, silence } from '../../helpers/speech.ts'
import { onnxModel } from '../../helpers/tiny-onnx.ts'

const root = mkdtempSync(join(tmpdir(), 'sherpa-stt-'))
const engines: SherpaOnnxStt[] = []
afterAll(() => {
  engines.forEach((e) => e.close())
  rmSync(root, { recursive: true, force: true })
})
async function load(streaming: boolean, endpointingMs = 400): Promise<SherpaOnnxStt> {
  const e = await SherpaOnnxStt.load({ modelDir: writeEnergyTransducer(join(root, streaming ? 'online' : 'offline'), { streaming }), endpointingMs })
  engines.push(e)
  return e
}

const phone = (a: AudioFrame): AudioFrame => ({ samples: resample(a.samples, a.sampleRate, 8000), sampleRate: 8000 })
const words = (text: string) => text.split(' ').filter(Boolean)

async function run(stt: SherpaOnnxStt, audio: AudioFrame): Promise<SttEvent[]> {
  const stream = stt.stream()
  for (const f of frames20ms(audio)) stream.push(f)
  stream.end()
  const { events, errors } = await drain(stream)
  expect(errors).toEqual([])
  return events
}

describe('sherpa-onnx STT on the real runtime (sherpa-onnx-node), with a generated energy model', () => {
  test('the native runtime loads under Bun', () => {
    const rt = sherpaRuntime()
    expect(rt).toMatchObject({ ok: true })
    expect((rt as { version: string }).version).toMatch(/^\d+\.\d+\.\d+/)
  })

  test('a streaming transducer gives interims while audio arrives and a final per segment ended by silence', async () => {
    const stt = await load(true)
    expect(stt.capabilities).toEqual({ streaming: true, interimResults: true, offline: true })
    expect(stt.model.description).toBe('streaming transducer (lstm)')
    const speech = fliteSpeech('one two three four')
    const audio = concatFrames([silence(500, speech.sampleRate), speech, silence(1000, speech.sampleRate), speech, silence(1000, speech.sampleRate)])
    const events = await run(stt, audio)
    const finals = events.filter((e) => e.type === 'final')
    expect(finals).toHaveLength(2)
    for (const f of finals) {
      expect(new Set(words(f.text))).toEqual(new Set([ENERGY_WORD]))
      // one word per loud 40 ms: about as many as the speech has voiced 40 ms frames
      expect(words(f.text).length).toBeGreaterThan(((speech.samples.length / speech.sampleRate) * 1000 * 0.4) / 40)
      expect(f.endOfTurn).toBe(true)
    }
    expect(finals[0]!.endMs).toBeLessThan(finals[1]!.startMs + 1)
    const firstFinal = events.findIndex((e) => e.type === 'final')
    expect(events.slice(0, firstFinal).some((e) => e.type === 'interim')).toBe(true)
    const totalMs = (audio.samples.length * 1000) / audio.sampleRate
    expect(events.at(-1)).toEqual({ type: 'usage', audioMs: Math.round(totalMs) })
  })

  test('silence alone gives no words', async () => {
    const events = await run(await load(true), silence(2000, 8000))
    expect(events.filter((e) => e.type !== 'usage')).toEqual([])
    expect(events).toEqual([{ type: 'usage', audioMs: 2000 }])
  })

  test('8 kHz phone audio is resampled to the model rate and heard like the 16 kHz original', async () => {
    const stt = await load(true)
    const speech = fliteSpeech('hello, I would like to book a table')
    const wide = words((await run(stt, speech)).flatMap((e) => (e.type === 'final' ? [e.text] : [])).join(' ')).length
    const narrow = words((await run(stt, phone(speech))).flatMap((e) => (e.type === 'final' ? [e.text] : [])).join(' ')).length
    expect(narrow).toBeGreaterThan(wide * 0.7)
    expect(narrow).toBeLessThan(wide * 1.3 + 1)
  })

  test('an offline transducer decodes one utterance after end()', async () => {
    const stt = await load(false)
    expect(stt.capabilities).toEqual({ streaming: false, interimResults: false, offline: true })
    const events = await run(stt, fliteSpeech('good morning'))
    expect(events.map((e) => e.type)).toEqual(['final', 'usage'])
    expect(new Set(words((events[0] as { text: string }).text))).toEqual(new Set([ENERGY_WORD]))
  })

  test('streams run side by side on one engine', async () => {
    const stt = await load(true)
    const speech = fliteSpeech('yes please')
    const [a, b] = await Promise.all([run(stt, speech), run(stt, concatFrames([silence(300, speech.sampleRate), speech]))])
    const text = (ev: SttEvent[]) => ev.flatMap((e) => (e.type === 'final' ? [e.text] : [])).join(' ')
    expect(words(text(a)).length).toBeGreaterThan(3)
    expect(Math.abs(words(text(a)).length - words(text(b)).length)).toBeLessThanOrEqual(2)
  })

  test('close() stops a stream at once without an error', async () => {
    const stt = await load(true)
    const stream = stt.stream()
    for (const f of frames20ms(fliteSpeech('hello there'))) stream.push(f)
    stream.close()
    expect(await drain(stream)).toEqual({ events: [], errors: [] })
  })

  test('frames of two sample rates in one stream fail it with a config error', async () => {
    const stream = (await load(true)).stream()
    stream.push(silence(20, 8000))
    stream.push(silence(20, 16000))
    stream.end()
    const { errors } = await drain(stream)
    expect(errors).toHaveLength(1)
    expect(errors[0]!.error.kind).toBe('config')
  })
})

describe('sherpa-onnx STT: models the runtime refuses', () => {
  test('a model that would make the runtime exit the process fails load() with the runtime reason, and the appliance lives on', async () => {
    const dir = writeEnergyTransducer(join(root, 'broken'), { streaming: true })
    const io = { name: 'x', type: 'float' as const, dims: [1] }
    // lstm metadata without num_encoder_layers: sherpa-onnx calls exit(-1) on this
    writeFileSync(join(dir, 'encoder-energy-chunk-16.onnx'), onnxModel({ inputs: [io], outputs: [{ ...io, name: 'y' }], nodes: [{ op: 'Identity', inputs: ['x'], outputs: ['y'] }], metadata: { model_type: 'lstm', T: 16 } }))
    const loading = SherpaOnnxStt.load({ modelDir: dir })
    await expect(loading).rejects.toThrow(`sherpa-onnx could not load the streaming transducer (lstm) model in ${dir}`)
    await expect(loading).rejects.toThrow("'num_encoder_layers' does not exist in the metadata")
  })

  test('runs beside Silero VAD (onnxruntime-node, a second ONNX runtime) in one process', async () => {
    const vad = await SileroVad.load()
    const stt = await load(true)
    const scorer = vad.scorer(16000)
    const speech = fliteSpeech('good afternoon')
    const events = await run(stt, speech)
    let voiced = 0
    for (let i = 0; i + 512 <= speech.samples.length; i += 512) {
      const window = Float32Array.from(speech.samples.subarray(i, i + 512), (v) => v / 32768)
      if ((await scorer.score(window)) > 0.5) voiced++
    }
    expect(voiced).toBeGreaterThan(5)
    expect(events.some((e) => e.type === 'final')).toBe(true)
  })
})

describe('sherpa-onnx STT chosen from config', () => {
  test('STT_PROVIDER=auto prefers a usable model in STT_SHERPA_MODEL_DIR, skipping broken folders', async () => {
    const dir = join(root, 'stt-auto')
    writeEnergyTransducer(join(dir, 'b-energy'), { streaming: true })
    mkdirSync(join(dir, 'a-empty'))
    const e = await createVoiceEngines(loadConfig({ STT_SHERPA_MODEL_DIR: dir, VAD_ENGINE: 'energy' }))
    engines.push(e.stt as SherpaOnnxStt)
    expect(e.stt?.provider).toBe('sherpa-onnx-stt')
    expect((e.stt as SherpaOnnxStt).model.dir).toBe(join(dir, 'b-energy'))
    expect(e.notes).toContain(`STT: sherpa-onnx, streaming transducer (lstm) from ${join(dir, 'b-energy')}`)
  })

  test('STT_PROVIDER=sherpa-onnx without a usable model is a ConfigError naming the folder and what is missing', async () => {
    const dir = join(root, 'stt-empty')
    mkdirSync(join(dir, 'half'), { recursive: true })
    writeFileSync(join(dir, 'half', 'tokens.txt'), '<blk> 0\n')
    const err = await createVoiceEngines(loadConfig({ STT_PROVIDER: 'sherpa-onnx', STT_SHERPA_MODEL_DIR: dir, VAD_ENGINE: 'energy' })).catch((x) => x)
    expect(err).toBeInstanceOf(ConfigError)
    expect(err.message).toBe(`STT_SHERPA_MODEL_DIR: no usable sherpa-onnx model in ${dir} (${join(dir, 'half')} holds no .onnx file; expected one of: ${SHERPA_LAYOUTS})`)
  })

  test('STT_PROVIDER=auto with no model folder keeps the previous choice', async () => {
    const e = await createVoiceEngines(loadConfig({ STT_SHERPA_MODEL_DIR: join(root, 'absent'), VAD_ENGINE: 'energy' }))
    expect(e.stt?.provider).not.toBe('sherpa-onnx-stt')
    ;(e.stt as { close?: () => void } | undefined)?.close?.()
  })
})
