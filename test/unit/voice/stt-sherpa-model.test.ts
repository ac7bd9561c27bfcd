import { afterAll, describe, expect, test } from 'bun:test'
import { mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { readOnnxMetadata } from '../../../src/realtime/voice/stt/onnx-metadata.ts'
import { detectSherpaModel, findSherpaModel, SherpaModelError } from '../../../src/realtime/voice/stt/sherpa-model.ts'
import { onnxModel } from '../../helpers/tiny-onnx.ts'

const root = mkdtempSync(join(tmpdir(), 'sherpa-model-'))
afterAll(() => rmSync(root, { recursive: true, force: true }))
let n = 0

/** A folder of files; `.onnx` entries get a tiny model carrying the given metadata. */
function folder(files: Record<string, Record<string, string | number> | string>): string {
  const dir = join(root, `m${n++}`)
  mkdirSync(dir)
  for (const [name, content] of Object.entries(files)) {
    if (typeof content === 'string') writeFileSync(join(dir, name), content)
    else {
      const io = { name: 'x', type: 'float' as const, dims: [1] }
      writeFileSync(join(dir, name), onnxModel({ inputs: [io], outputs: [{ ...io, name: 'y' }], nodes: [{ op: 'Identity', inputs: ['x'], outputs: ['y'] }], metadata: content }))
    }
  }
  return dir
}
const tokens = '<blk> 0\n'
const streamingZipformer = { model_type: 'zipformer2', T: 45, decode_chunk_len: 32 }

describe('sherpa-onnx model folders: the family comes from the files present and the ONNX metadata', () => {
  test('reads the metadata of an ONNX file without loading its graph', () => {
    const dir = folder({ 'a.onnx': { model_type: 'lstm', T: 16, comment: 'naïve ✓' } })
    expect(readOnnxMetadata(join(dir, 'a.onnx'))).toEqual({ model_type: 'lstm', T: '16', comment: 'naïve ✓' })
  })

  test('a streaming zipformer transducer is streaming; int8 files are preferred', () => {
    const dir = folder({
      'tokens.txt': tokens,
      'encoder-epoch-99-avg-1-chunk-16-left-128.onnx': streamingZipformer,
      'encoder-epoch-99-avg-1-chunk-16-left-128.int8.onnx': streamingZipformer,
      'decoder-epoch-99-avg-1-chunk-16-left-128.onnx': {},
      'joiner-epoch-99-avg-1-chunk-16-left-128.int8.onnx': {},
    })
    const m = detectSherpaModel(dir)
    expect(m).toMatchObject({ family: 'transducer', streaming: true, description: 'streaming transducer (zipformer2)' })
    expect(m.modelConfig).toEqual({
      transducer: {
        encoder: join(dir, 'encoder-epoch-99-avg-1-chunk-16-left-128.int8.onnx'),
        decoder: join(dir, 'decoder-epoch-99-avg-1-chunk-16-left-128.onnx'),
        joiner: join(dir, 'joiner-epoch-99-avg-1-chunk-16-left-128.int8.onnx'),
      },
      tokens: join(dir, 'tokens.txt'),
    })
  })

  test('a transducer whose encoder has no chunk metadata is an offline one', () => {
    const dir = folder({ 'tokens.txt': tokens, 'encoder.onnx': { model_type: 'zipformer2', comment: 'non-streaming' }, 'decoder.onnx': {}, 'joiner.onnx': {} })
    expect(detectSherpaModel(dir)).toMatchObject({ family: 'transducer', streaming: false, description: 'offline transducer (zipformer2)' })
  })

  test('whisper: prefixed tokens file, encoder and decoder, whisper model_type', () => {
    const dir = folder({ 'tiny.en-tokens.txt': tokens, 'tiny.en-encoder.int8.onnx': { model_type: 'whisper-tiny.en' }, 'tiny.en-decoder.int8.onnx': {} })
    const m = detectSherpaModel(dir)
    expect(m).toMatchObject({ family: 'whisper', streaming: false })
    expect(m.modelConfig).toMatchObject({ whisper: { encoder: join(dir, 'tiny.en-encoder.int8.onnx'), task: 'transcribe' }, tokens: join(dir, 'tiny.en-tokens.txt') })
  })

  test('encoder and decoder with paraformer metadata: a streaming paraformer', () => {
    const dir = folder({ 'tokens.txt': tokens, 'encoder.int8.onnx': { lfr_window_size: 7, lfr_window_shift: 6 }, 'decoder.int8.onnx': {} })
    expect(detectSherpaModel(dir)).toMatchObject({ family: 'paraformer', streaming: true })
  })

  test('one model file: sense-voice or an offline paraformer by its metadata', () => {
    expect(detectSherpaModel(folder({ 'tokens.txt': tokens, 'model.int8.onnx': { with_itn: 14, lfr_window_size: 7 } }))).toMatchObject({ family: 'sense-voice', streaming: false })
    expect(detectSherpaModel(folder({ 'tokens.txt': tokens, 'model.onnx': { lfr_window_size: 7, neg_mean: '0' } }))).toMatchObject({ family: 'paraformer', streaming: false })
  })

  const refusals: [string, () => string, RegExp][] = [
    ['a folder that does not exist', () => join(root, 'nope'), /nope does not exist/],
    ['a folder with no model', () => folder({ 'README.md': 'hi' }), /holds no \.onnx file; expected one of: streaming or offline transducer/],
    ['a model without tokens.txt', () => folder({ 'encoder.onnx': streamingZipformer, 'decoder.onnx': {}, 'joiner.onnx': {} }), /has no tokens\.txt/],
    ['a transducer without its decoder', () => folder({ 'tokens.txt': tokens, 'encoder.onnx': streamingZipformer, 'joiner.onnx': {} }), /has encoder\.onnx, joiner\.onnx but no decoder\*\.onnx/],
    ['an encoder and decoder of an unknown kind', () => folder({ 'tokens.txt': tokens, 'encoder.onnx': { model_type: 'mystery' }, 'decoder.onnx': {} }), /no joiner\*\.onnx.*model_type: mystery/],
    ['a single model of an unsupported kind', () => folder({ 'tokens.txt': tokens, 'model.onnx': { model_type: 'EncDecCTCModelBPE' } }), /model\.onnx is not a model family this appliance runs \(model_type: EncDecCTCModelBPE\)/],
    ['several unrelated ONNX files', () => folder({ 'tokens.txt': tokens, 'a.onnx': {}, 'b.onnx': {} }), /has a\.onnx, b\.onnx: no model\*\.onnx/],
    ['a file that is not ONNX', () => folder({ 'tokens.txt': tokens, 'model.onnx': '\u00ff\u00ff\u00ff\u00ff garbage' }), /model\.onnx: not an ONNX file/],
  ]
  for (const [what, make, message] of refusals) {
    test(`refuses ${what} with a message naming the problem`, () => {
      const dir = make()
      expect(() => detectSherpaModel(dir)).toThrow(SherpaModelError)
      expect(() => detectSherpaModel(dir)).toThrow(message)
    })
  }

  test('models/stt may hold the model itself or folders of models: the first usable folder by name is used', () => {
    const parent = join(root, `stt${n++}`)
    for (const [name, files] of Object.entries<Record<string, Record<string, string | number> | string>>({
      'a-broken': { 'notes.txt': 'x' },
      'b-sense-voice': { 'tokens.txt': tokens, 'model.onnx': { with_itn: 14 } },
      'c-paraformer': { 'tokens.txt': tokens, 'model.onnx': { lfr_window_size: 7 } },
    })) {
      const dir = folder(files)
      mkdirSync(parent, { recursive: true })
      renameSync(dir, join(parent, name))
    }
    const { model, problems } = findSherpaModel(parent)
    expect(model?.dir).toBe(join(parent, 'b-sense-voice'))
    expect(problems).toEqual([expect.stringContaining(`${join(parent, 'a-broken')} holds no .onnx file`)])
    const direct = folder({ 'tokens.txt': tokens, 'model.onnx': { lfr_window_size: 7 } })
    expect(findSherpaModel(direct).model?.dir).toBe(direct)
    expect(findSherpaModel(join(root, 'absent'))).toEqual({ model: undefined, problems: [`${join(root, 'absent')} does not exist`] })
  })
})
