import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { type OnnxNode, onnxModel } from './tiny-onnx.ts'

/** The one word an energy model knows: it "hears" it in every loud 40 ms (streaming) or 10 ms (offline) frame. */
export const ENERGY_WORD = 'v'

/**
 * A transducer in sherpa-onnx's own model format whose "recognition" is an energy detector: the
 * encoder averages the log-mel features of each frame, the joiner emits ENERGY_WORD where that mean
 * exceeds `threshold`, blank elsewhere. It runs on the real runtime (feature extraction, streaming
 * chunks, greedy search, endpointing on trailing blanks), which is what the adapter tests need from
 * a model; no registry package ships a real one.
 */
export function writeEnergyTransducer(dir: string, opts: { streaming: boolean; threshold?: number }): string {
  const threshold = opts.threshold ?? -3
  mkdirSync(dir, { recursive: true })
  writeFileSync(join(dir, 'tokens.txt'), `<blk> 0\n▁${ENERGY_WORD} 1\n`)
  const chunk = 16
  const encoder = opts.streaming
    ? onnxModel({
        inputs: [
          { name: 'x', type: 'float', dims: ['N', chunk, 80] },
          { name: 'h', type: 'float', dims: [1, 'N', 1] },
          { name: 'c', type: 'float', dims: [1, 'N', 1] },
        ],
        outputs: [
          { name: 'encoder_out', type: 'float', dims: ['N', chunk / 4, 1] },
          { name: 'next_h', type: 'float', dims: [1, 'N', 1] },
          { name: 'next_c', type: 'float', dims: [1, 'N', 1] },
        ],
        initializers: [{ name: 'by4', type: 'int64', dims: [3], values: [0, -1, 4] }],
        nodes: [
          { op: 'ReduceMax', inputs: ['x'], outputs: ['frame'], attrs: { axes: [2], keepdims: 0 } },
          // 4x subsampling, as sherpa assumes when it turns trailing blanks into silence
          { op: 'Reshape', inputs: ['frame', 'by4'], outputs: ['groups'] },
          { op: 'ReduceMean', inputs: ['groups'], outputs: ['encoder_out'], attrs: { axes: [2], keepdims: 1 } },
          { op: 'Identity', inputs: ['h'], outputs: ['next_h'] },
          { op: 'Identity', inputs: ['c'], outputs: ['next_c'] },
        ],
        metadata: { model_type: 'lstm', num_encoder_layers: 1, T: chunk, decode_chunk_len: chunk, rnn_hidden_size: 1, d_model: 1 },
      })
    : onnxModel({
        inputs: [
          { name: 'x', type: 'float', dims: ['N', 'T', 80] },
          { name: 'x_lens', type: 'int64', dims: ['N'] },
        ],
        outputs: [
          { name: 'encoder_out', type: 'float', dims: ['N', 'T', 1] },
          { name: 'encoder_out_lens', type: 'int64', dims: ['N'] },
        ],
        nodes: [
          { op: 'ReduceMax', inputs: ['x'], outputs: ['encoder_out'], attrs: { axes: [2], keepdims: 1 } },
          { op: 'Identity', inputs: ['x_lens'], outputs: ['encoder_out_lens'] },
        ],
        metadata: { model_type: 'zipformer2', version: 1 },
      })
  const decoderNodes: OnnxNode[] = [
    { op: 'Cast', inputs: ['y'], outputs: ['yf'], attrs: { to: 1 } },
    { op: 'ReduceMean', inputs: ['yf'], outputs: ['ym'], attrs: { axes: [1], keepdims: 1 } },
    { op: 'Mul', inputs: ['ym', 'zero'], outputs: ['decoder_out'] },
  ]
  const decoder = onnxModel({
    inputs: [{ name: 'y', type: 'int64', dims: ['N', 2] }],
    outputs: [{ name: 'decoder_out', type: 'float', dims: ['N', 1] }],
    initializers: [{ name: 'zero', type: 'float', dims: [1], values: [0] }],
    nodes: decoderNodes,
    metadata: { vocab_size: 2, context_size: 2 },
  })
  const joiner = onnxModel({
    inputs: [
      { name: 'encoder_out', type: 'float', dims: ['N', 1] },
      { name: 'decoder_out', type: 'float', dims: ['N', 1] },
    ],
    outputs: [{ name: 'logit', type: 'float', dims: ['N', 2] }],
    initializers: [
      { name: 'w', type: 'float', dims: [1, 2], values: [0, 1] },
      { name: 'b', type: 'float', dims: [2], values: [0, -threshold] },
    ],
    nodes: [
      { op: 'Add', inputs: ['encoder_out', 'decoder_out'], outputs: ['s'] },
      { op: 'MatMul', inputs: ['s', 'w'], outputs: ['sw'] },
      { op: 'Add', inputs: ['sw', 'b'], outputs: ['logit'] },
    ],
  })
  const tag = opts.streaming ? 'chunk-16' : 'offline'
  writeFileSync(join(dir, `encoder-energy-${tag}.onnx`), encoder)
  writeFileSync(join(dir, `decoder-energy-${tag}.onnx`), decoder)
  writeFileSync(join(dir, `joiner-energy-${tag}.onnx`), joiner)
  return dir
}
