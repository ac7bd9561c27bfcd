import { existsSync, readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { readOnnxMetadata } from './onnx-metadata.ts'

export type SherpaFamily = 'transducer' | 'paraformer' | 'whisper' | 'sense-voice'

/** A model folder as sherpa-onnx will load it. */
export interface SherpaModel {
  dir: string
  family: SherpaFamily
  /** Streaming models give interim results while audio arrives; the others decode an utterance at a time. */
  streaming: boolean
  /** sherpa-onnx-node's `modelConfig` (file paths and per-family options), without thread settings. */
  modelConfig: Record<string, unknown>
  /** For the start-up log, e.g. "streaming transducer (zipformer2)". */
  description: string
}

export const SUPPORTED_LAYOUTS =
  'streaming or offline transducer (tokens.txt + encoder*.onnx + decoder*.onnx + joiner*.onnx), ' +
  'streaming paraformer (tokens.txt + encoder*.onnx + decoder*.onnx), whisper (*tokens.txt + *encoder*.onnx + *decoder*.onnx), ' +
  'sense-voice or offline paraformer (tokens.txt + model*.onnx)'

export class SherpaModelError extends Error {}

/**
 * Works out which sherpa-onnx family a folder holds from its file names and the ONNX metadata
 * sherpa's exporters write; throws a SherpaModelError naming what is missing or unsupported.
 */
export function detectSherpaModel(dir: string): SherpaModel {
  if (!existsSync(dir) || !statSync(dir).isDirectory()) throw new SherpaModelError(`sherpa-onnx model folder ${dir} does not exist`)
  const files = readdirSync(dir).filter((f) => statSync(join(dir, f)).isFile())
  const onnx = files.filter((f) => f.endsWith('.onnx'))
  if (onnx.length === 0) throw new SherpaModelError(`${dir} holds no .onnx file; expected one of: ${SUPPORTED_LAYOUTS}`)
  const tokensFile = files.includes('tokens.txt') ? 'tokens.txt' : files.find((f) => f.endsWith('tokens.txt'))
  if (!tokensFile) throw new SherpaModelError(`${dir} has no tokens.txt (every sherpa-onnx ASR model ships one)`)
  const tokens = join(dir, tokensFile)
  const path = (f: string) => join(dir, f)
  const encoder = pick(onnx, 'encoder')
  const decoder = pick(onnx, 'decoder')
  const joiner = pick(onnx, 'joiner')

  if (encoder || decoder || joiner) {
    const missing = [['encoder', encoder], ['decoder', decoder]].filter(([, f]) => !f).map(([r]) => `${r}*.onnx`)
    if (missing.length) throw new SherpaModelError(`${dir} has ${[encoder, decoder, joiner].filter(Boolean).join(', ')} but no ${missing.join(' or ')}`)
    const meta = metadata(path(encoder!))
    if (joiner) {
      const streaming = 'decode_chunk_len' in meta || 'T' in meta
      const kind = meta.model_type ? ` (${meta.model_type})` : ''
      return {
        dir,
        family: 'transducer',
        streaming,
        modelConfig: { transducer: { encoder: path(encoder!), decoder: path(decoder!), joiner: path(joiner) }, tokens },
        description: `${streaming ? 'streaming' : 'offline'} transducer${kind}`,
      }
    }
    if ((meta.model_type ?? '').startsWith('whisper') || 'n_text_layer' in meta) {
      return {
        dir,
        family: 'whisper',
        streaming: false,
        modelConfig: { whisper: { encoder: path(encoder!), decoder: path(decoder!), task: 'transcribe' }, tokens },
        description: `whisper${meta.model_type ? ` (${meta.model_type})` : ''}`,
      }
    }
    if (meta.model_type === 'paraformer' || 'lfr_window_size' in meta) {
      return {
        dir,
        family: 'paraformer',
        streaming: true,
        modelConfig: { paraformer: { encoder: path(encoder!), decoder: path(decoder!) }, tokens },
        description: 'streaming paraformer',
      }
    }
    throw new SherpaModelError(
      `${dir} has ${encoder} and ${decoder} but no joiner*.onnx, and the encoder's metadata names neither whisper nor paraformer ` +
        `(model_type: ${meta.model_type ?? 'none'}); supported: ${SUPPORTED_LAYOUTS}`,
    )
  }

  const model = pick(onnx, 'model') ?? (onnx.length === 1 ? onnx[0] : undefined)
  if (!model) throw new SherpaModelError(`${dir} has ${onnx.join(', ')}: no model*.onnx, encoder*.onnx, decoder*.onnx or joiner*.onnx; supported: ${SUPPORTED_LAYOUTS}`)
  const meta = metadata(path(model))
  const type = meta.model_type ?? ''
  if (type.includes('sense') || 'with_itn' in meta) {
    return {
      dir,
      family: 'sense-voice',
      streaming: false,
      modelConfig: { senseVoice: { model: path(model), useInverseTextNormalization: 1 }, tokens },
      description: 'sense-voice',
    }
  }
  if (type === 'paraformer' || 'lfr_window_size' in meta) {
    return { dir, family: 'paraformer', streaming: false, modelConfig: { paraformer: { model: path(model) }, tokens }, description: 'offline paraformer' }
  }
  throw new SherpaModelError(`${dir}/${model} is not a model family this appliance runs (model_type: ${type || 'none'}); supported: ${SUPPORTED_LAYOUTS}`)
}

/**
 * The model folder to use under `root`: `root` itself when it holds a model, else its first
 * sub-folder (by name) that does. Undefined when there is none; errors of each folder tried are listed.
 */
export function findSherpaModel(root: string): { model: SherpaModel | undefined; problems: string[] } {
  const problems: string[] = []
  if (!existsSync(root)) return { model: undefined, problems: [`${root} does not exist`] }
  const candidates = [root, ...readdirSync(root).sort().map((f) => join(root, f)).filter((p) => statSync(p).isDirectory())]
  for (const dir of candidates) {
    try {
      return { model: detectSherpaModel(dir), problems }
    } catch (err) {
      if (dir !== root) problems.push((err as Error).message)
    }
  }
  return { model: undefined, problems }
}

/** Every usable model under `root` (root itself first, then its folders by name). */
export function findSherpaModels(root: string): SherpaModel[] {
  if (!existsSync(root)) return []
  const candidates = [root, ...readdirSync(root).sort().map((f) => join(root, f)).filter((p) => statSync(p).isDirectory())]
  return candidates.flatMap((dir) => {
    try {
      return [detectSherpaModel(dir)]
    } catch {
      return []
    }
  })
}

/**
 * The model for a caller language: the first whose folder name carries the language's primary
 * subtag as a word (`...-zipformer-de-2023...`, `bilingual-zh-en`), else the first model.
 */
export function sherpaModelFor<M extends { dir: string }>(models: M[], language: string): M | undefined {
  const primary = language.split('-')[0]!.toLowerCase()
  const named = models.find((m) => (m.dir.split(/[\\/]/).pop() ?? '').toLowerCase().split(/[-_.\s]+/).includes(primary))
  return named ?? models[0]
}

/** The file for one role; int8-quantized exports are preferred (smaller, faster on a CPU). */
function pick(onnx: string[], role: string): string | undefined {
  const matches = onnx.filter((f) => f.toLowerCase().includes(role)).sort((a, b) => a.length - b.length)
  return matches.find((f) => f.includes('int8')) ?? matches[0]
}

function metadata(file: string): Record<string, string> {
  try {
    return readOnnxMetadata(file)
  } catch (err) {
    throw new SherpaModelError(`${file}: ${(err as Error).message}`)
  }
}
