import { existsSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { SttLanguageModel } from './contract.ts'

/**
 * pocketsphinx 5prealpha (Debian libpocketsphinx3) through bun:ffi. Only non-variadic entry
 * points are bound: the configuration goes through cmd_ln_parse_r with an argv array.
 */
export const DEBIAN_MODEL_DIR = '/usr/share/pocketsphinx/model/en-us'

type Ffi = typeof import('bun:ffi')

export interface Native {
  ffi: Ffi
  // the symbols' exact types come from dlopen; the wrapper below is the typed face
  ps: any
  sb: any
}

let native: Native | null | undefined

/** The libraries, or null when they are not installed. */
export function loadNative(): Native | null {
  if (native !== undefined) return native
  try {
    const ffi = require('bun:ffi') as Ffi
    const sb = ffi.dlopen('libsphinxbase.so.3', {
      cmd_ln_parse_r: { args: ['ptr', 'ptr', 'i32', 'ptr', 'i32'], returns: 'ptr' },
      cmn_live_update: { args: ['ptr'], returns: 'void' },
      err_set_logfp: { args: ['ptr'], returns: 'ptr' },
      ngram_model_read: { args: ['ptr', 'ptr', 'i32', 'ptr'], returns: 'ptr' },
      ngram_model_retain: { args: ['ptr'], returns: 'ptr' },
      ngram_model_free: { args: ['ptr'], returns: 'i32' },
      ngram_model_set_init: { args: ['ptr', 'ptr', 'ptr', 'ptr', 'i32'], returns: 'ptr' },
    })
    const ps = ffi.dlopen('libpocketsphinx.so.3', {
      ps_args: { args: [], returns: 'ptr' },
      ps_init: { args: ['ptr'], returns: 'ptr' },
      ps_start_utt: { args: ['ptr'], returns: 'i32' },
      ps_process_raw: { args: ['ptr', 'ptr', 'u64', 'i32', 'i32'], returns: 'i32' },
      ps_end_utt: { args: ['ptr'], returns: 'i32' },
      ps_get_hyp: { args: ['ptr', 'ptr'], returns: 'ptr' },
      ps_free: { args: ['ptr'], returns: 'i32' },
      ps_start_stream: { args: ['ptr'], returns: 'i32' },
      ps_get_feat: { args: ['ptr'], returns: 'ptr' },
      ps_get_config: { args: ['ptr'], returns: 'ptr' },
      ps_get_logmath: { args: ['ptr'], returns: 'ptr' },
      ps_get_lm: { args: ['ptr', 'ptr'], returns: 'ptr' },
      ps_set_lm: { args: ['ptr', 'ptr', 'ptr'], returns: 'i32' },
      ps_set_search: { args: ['ptr', 'ptr'], returns: 'i32' },
    })
    // sphinxbase's log file is one global of the process: `-logfn` on each decoder closed the
    // previous FILE while another thread's decoder could be closing or writing it (a double free);
    // a null log silences every thread's decoders at once
    sb.symbols.err_set_logfp(null)
    mapLargeBlocks()
    native = { ffi, ps: ps.symbols, sb: sb.symbols }
  } catch {
    native = null
  }
  return native
}

export type SphinxMode = 'dictation' | 'digits' | 'yesno'

export const GRAMMARS: Record<Exclude<SphinxMode, 'dictation'>, string> = {
  digits: '#JSGF V1.0;\ngrammar digits;\npublic <digits> = ( zero | oh | one | two | three | four | five | six | seven | eight | nine )+ ;\n',
  yesno:
    '#JSGF V1.0;\ngrammar yesno;\npublic <answer> = ( yes | yeah | yep | correct | right | sure | no | nope | not | wrong ) [ please | thanks | thank you ] ;\n',
}

/** The grammar as a file for ps_init, which reads it at once: the caller removes the folder after. */
function grammarFile(mode: Exclude<SphinxMode, 'dictation'>): { file: string; dir: string } {
  const dir = mkdtempSync(join(tmpdir(), 'sphinx-grammar-'))
  const file = join(dir, `${mode}.gram`)
  writeFileSync(file, GRAMMARS[mode])
  return { file, dir }
}

/**
 * Dictation for a caller who is waiting. The second (fwdflat) pass ran over the whole utterance
 * after it ended (about 180 ms, all of it added to the response gap), and a cap of 4,000 active
 * HMMs per frame cuts the first pass. Over 75 phone utterances (`npm run bench:pocketsphinx`):
 * half the CPU per second of speech, the end of an utterance 179 -> 23 ms, word errors 42.6% -> 45.4%.
 */
export const STREAMING_SEARCH: readonly string[] = ['-fwdflat', 'no', '-maxhmmpf', '4000']

/**
 * Dictation with an agent's model: the first pass's lexical tree scores a word's language model
 * probability only at its end, so a cap of 4,000 HMMs cut an agent's rare word ("zephyrine")
 * before it ended, whatever its weight; 12,000 kept it (bench:pocketsphinx-domain-lm gives the cost).
 */
export const AGENT_LM_SEARCH: readonly string[] = ['-fwdflat', 'no', '-maxhmmpf', '12000']

/**
 * Which front end turns a line's audio into features. `wideband`: 16 kHz, the en-us model's own
 * (feat.params: 130-6800 Hz); phone lines are upsampled to it. `phone`: 8 kHz audio with a front
 * end over the band a G.711 line carries (PHONE_FRONT_END). With the 16 kHz en-us model the phone
 * front end gets nearly every word wrong (its features are not the ones the model was trained on:
 * bench/pocketsphinx-frontend.ts), so calls keep `wideband`; `phone` is for an 8 kHz acoustic model.
 */
export type FrontEnd = 'wideband' | 'phone'

/** The phone front end: 8 kHz, a 256-point FFT (32 ms at 8 kHz, as 512 is at 16 kHz), the filters over the line's band. */
export const PHONE_FRONT_END: readonly string[] = ['-samprate', '8000', '-nfft', '256']
export const PHONE_BAND_HZ = { lowerf: 200, upperf: 3500 }

/**
 * The acoustic model with its filter bank over `band`: ps_init reads feat.params after the
 * command line, and its -lowerf/-upperf win, so the phone front end loads a folder of links to
 * the model's files with a feat.params of its own (made once per band, shared by every thread).
 */
export function bandModel(hmm: string, band: { lowerf: number; upperf: number } = PHONE_BAND_HZ): string {
  const dir = join(tmpdir(), `pocketsphinx-band-${band.lowerf}-${band.upperf}-${hmm.replace(/[^A-Za-z0-9]+/g, '_')}`)
  if (existsSync(join(dir, 'feat.params'))) return dir
  const part = mkdtempSync(`${dir}.part-`)
  for (const f of readdirSync(hmm)) if (f !== 'feat.params') symlinkSync(join(hmm, f), join(part, f))
  const params = readFileSync(join(hmm, 'feat.params'), 'utf8')
    .split('\n')
    .filter((l) => !/^-(lowerf|upperf)\b/.test(l))
  writeFileSync(join(part, 'feat.params'), [`-lowerf ${band.lowerf}`, `-upperf ${band.upperf}`, ...params].join('\n'))
  try {
    renameSync(part, dir)
  } catch {
    // another thread made it first
    rmSync(part, { recursive: true, force: true })
  }
  return dir
}

export const FRONT_END_RATE: Record<FrontEnd, number> = { wideband: 16000, phone: 8000 }

/** How one decoder is made: its front end, its dictation search and language model. */
export interface DecoderOptions {
  /** The dictation search's options (STREAMING_SEARCH; the bench compares others). */
  search?: readonly string[]
  frontEnd?: FrontEnd
  /** The phone front end's filter bank (PHONE_BAND_HZ; the bench compares others). */
  band?: { lowerf: number; upperf: number }
  /** A language model file (ARPA or binary, its words in the en-us dictionary) instead of the general en-us one. */
  lm?: string
  /** A dictionary file instead of en-us's (dictation only). */
  dictionary?: string
  /** An agent's own model, interpolated with the general one (applies to dictation only). */
  agentLm?: AgentLmFiles
}

/** An agent's language model as the decoder loads it (agent-lm/ builds it). */
export type AgentLmFiles = SttLanguageModel

/** Length of the en-us model's cepstrum vectors. */
export const CEPLEN = 13
const CMN_STEP_SAMPLES = 320

/** sphinxbase's cepstral mean normalisation state (cmn_t) of one decoder, as views of its memory. */
interface Cmn {
  handle: unknown
  mean: Float32Array
  sum: Float32Array
  nframe: Int32Array
}

/**
 * feat_t.cmn_struct and cmn_t's fields as sphinxbase 5prealpha lays them out on a 64-bit build;
 * trusted only when the two cepstrum lengths they also hold read as 13.
 */
function cmnOf(n: Native, handle: unknown): Cmn | undefined {
  const { ffi } = n
  const feat = n.ps.ps_get_feat(handle)
  if (!feat || ffi.read.i32(feat, 16) !== CEPLEN) return undefined
  const cmn = ffi.read.ptr(feat, 88)
  if (!cmn || ffi.read.i32(cmn, 28) !== CEPLEN) return undefined
  const vec = (offset: number) => new Float32Array(ffi.toArrayBuffer(ffi.read.ptr(cmn, offset) as any, 0, CEPLEN * 4))
  return { handle: cmn, mean: vec(0), sum: vec(16), nframe: new Int32Array(ffi.toArrayBuffer(cmn, 24, 4)) }
}

/** One decoder, fed one utterance at a time as it arrives, at its front end's rate (FRONT_END_RATE). */
export class SphinxDecoder {
  private readonly score = new Int32Array(1)
  private inUtterance = false
  /** Samples fed in this utterance. */
  private fed = 0

  private constructor(
    private readonly n: Native,
    private readonly handle: unknown,
    private readonly cmn: Cmn | undefined,
  ) {}

  static create(n: Native, mode: SphinxMode, modelDir: string, opts: DecoderOptions = {}): SphinxDecoder {
    const dict = (mode === 'dictation' && (opts.dictionary ?? opts.agentLm?.dictionary)) || join(modelDir, 'cmudict-en-us.dict')
    const phone = opts.frontEnd === 'phone'
    const hmm = join(modelDir, 'en-us')
    const args = ['-hmm', phone ? bandModel(hmm, opts.band) : hmm, '-dict', dict]
    args.push(...(phone ? PHONE_FRONT_END : ['-samprate', '16000']))
    const grammar = mode === 'dictation' ? undefined : grammarFile(mode)
    if (grammar) args.push('-jsgf', grammar.file)
    else args.push('-lm', opts.lm ?? join(modelDir, 'en-us.lm.bin'), ...(opts.search ?? (opts.agentLm ? AGENT_LM_SEARCH : STREAMING_SEARCH)))
    try {
      const bufs = args.map((a) => Buffer.from(`${a}\0`))
      const argv = new BigUint64Array(bufs.map((b) => BigInt(n.ffi.ptr(b))))
      const config = n.sb.cmd_ln_parse_r(null, n.ps.ps_args(), args.length, n.ffi.ptr(argv), 1)
      if (!config) throw new Error('pocketsphinx rejected its configuration')
      const handle = n.ps.ps_init(config)
      if (!handle) throw new Error(`pocketsphinx could not load the model in ${modelDir}`)
      if (opts.agentLm && !grammar) {
        try {
          interpolate(n, handle, opts.agentLm)
        } catch (err) {
          n.ps.ps_free(handle)
          throw err
        }
      }
      return new SphinxDecoder(n, handle, cmnOf(n, handle))
    } finally {
      if (grammar) rmSync(grammar.dir, { recursive: true, force: true })
    }
  }

  /**
   * Starts an utterance. Its cepstral mean starts at `cmn.mean`, as if seen over `cmn.frames`
   * frames, and follows the utterance as it is fed: fed in blocks, the 5prealpha decoder would
   * otherwise carry the last utterance's mean (another caller's line) into this one.
   */
  start(cmn: { mean: Float32Array; frames: number }): void {
    const { ps } = this.n
    if (this.inUtterance) throw new Error('pocketsphinx utterance already started')
    if (this.cmn) {
      this.cmn.mean.set(cmn.mean)
      for (let i = 0; i < CEPLEN; i++) this.cmn.sum[i] = cmn.mean[i]! * cmn.frames
      this.cmn.nframe[0] = cmn.frames
    }
    // the front end's noise estimate starts afresh too (from the utterance's first frames, the
    // listener's pre-roll): carried over, the last caller's line decided this caller's first words
    ps.ps_start_stream(this.handle)
    if (ps.ps_start_utt(this.handle) < 0) throw new Error('pocketsphinx could not start an utterance')
    this.inUtterance = true
    this.fed = 0
  }

  /**
   * Feeds audio. The running mean moves every 20 ms of the utterance's audio, counted from its
   * start, so the words do not depend on how the audio was cut into messages.
   */
  feed(samples: Int16Array): void {
    const { ps, sb, ffi } = this.n
    for (let i = 0; i < samples.length; ) {
      const n = Math.min(samples.length - i, CMN_STEP_SAMPLES - (this.fed % CMN_STEP_SAMPLES))
      if (ps.ps_process_raw(this.handle, ffi.ptr(samples, i * 2), n, 0, 0) < 0) throw new Error('pocketsphinx failed to process audio')
      i += n
      this.fed += n
      if (this.cmn && this.fed % CMN_STEP_SAMPLES === 0) sb.cmn_live_update(this.cmn.handle)
    }
  }

  /** The best hypothesis so far, during the utterance. */
  partial(): string {
    return this.hyp()
  }

  /** Ends the utterance (the best path through its lattice is found here) and gives its text. */
  finish(): string {
    this.end()
    return this.hyp()
  }

  /** Ends the utterance without reading it, so the decoder can take the next one. */
  end(): void {
    if (!this.inUtterance) return
    this.inUtterance = false
    this.n.ps.ps_end_utt(this.handle)
  }

  /** The cepstral mean the utterance's audio has moved the normalisation to (undefined where the layout is unknown). */
  mean(): Float32Array | undefined {
    return this.cmn && new Float32Array(this.cmn.mean)
  }

  private hyp(): string {
    const { ps, ffi } = this.n
    const p = ps.ps_get_hyp(this.handle, ffi.ptr(this.score))
    return p ? new ffi.CString(p).toString().trim() : ''
  }

  free(): void {
    this.end()
    this.n.ps.ps_free(this.handle)
  }
}

const cstr = (s: string) => Buffer.from(`${s}\0`)
const AGENT_SEARCH = cstr('agent')
const DEFAULT_SEARCH = cstr('_default')
const NGRAM_ARPA = 1
/**
 * pocketsphinx's -lw (its default, which decoders keep). A set mixes its models' scores after each
 * is raised to this power (ngram_model_set_score adds the log weight to lw * log p), so a weight
 * w given to it acts as w^(1/lw); each share is passed raised to lw so that it acts as itself.
 */
const LANGUAGE_WEIGHT = 6.5

/**
 * Makes the decoder's dictation search a set of two models, the general one and the agent's,
 * whose probabilities sphinxbase mixes linearly by weight (ngram_model_set_init with weights).
 * The agent's words come in its own dictionary file: ps_add_word would also add them to the
 * general model, and decoding then crashed on the first such word (5prealpha).
 */
function interpolate(n: Native, handle: unknown, lm: AgentLmFiles): void {
  const { ps, sb, ffi } = n
  const general = ps.ps_get_lm(handle, ffi.ptr(DEFAULT_SEARCH))
  if (!general) throw new Error('pocketsphinx has no general language model to interpolate with')
  const file = cstr(lm.arpa)
  const own = sb.ngram_model_read(ps.ps_get_config(handle), ffi.ptr(file), NGRAM_ARPA, ps.ps_get_logmath(handle))
  if (!own) throw new Error(`pocketsphinx could not read the agent's language model ${lm.arpa}`)
  // the set frees its models with itself; the default search keeps its reference to the general one
  sb.ngram_model_retain(general)
  const models = new BigUint64Array([BigInt(general as number), BigInt(own as number)])
  const nameBufs = [cstr('general'), cstr('agent')]
  const names = new BigUint64Array(nameBufs.map((b) => BigInt(ffi.ptr(b))))
  const weights = new Float32Array([lm.generalWeight ** LANGUAGE_WEIGHT, (1 - lm.generalWeight) ** LANGUAGE_WEIGHT])
  const set = sb.ngram_model_set_init(ps.ps_get_config(handle), ffi.ptr(models), ffi.ptr(names), ffi.ptr(weights), 2)
  if (!set) {
    sb.ngram_model_free(general)
    sb.ngram_model_free(own)
    throw new Error('pocketsphinx could not combine the language models')
  }
  // the new search owns the set from here (ngram_search_init takes it without a reference of its own)
  const ok = ps.ps_set_lm(handle, ffi.ptr(AGENT_SEARCH), set) >= 0 && ps.ps_set_search(handle, ffi.ptr(AGENT_SEARCH)) >= 0
  if (!ok) throw new Error('pocketsphinx could not search with the agent\'s language model')
}

/** glibc's mallopt parameter: blocks of at least this many bytes get pages of their own (mmap). */
const M_MMAP_THRESHOLD = -3

/**
 * Pins glibc's mmap threshold at its 128 KiB default, for the whole process. Left alone, glibc
 * raises it to the size of each large block freed (up to 32 MiB); after the first model is freed,
 * the next model's arrays come from the heap among small blocks that outlive them, and
 * malloc_trim could not give their pages back: 20-60 MB of each 190 MB load stayed after its
 * release. Pinned, every large block is unmapped as it is freed.
 */
function mapLargeBlocks(): void {
  try {
    const lib = (require('bun:ffi') as Ffi).dlopen('libc.so.6', { mallopt: { args: ['i32', 'i32'], returns: 'i32' } })
    lib.symbols.mallopt(M_MMAP_THRESHOLD, 128 * 1024)
  } catch {
    // not glibc: its allocator decides
  }
}

let trim: (() => void) | null | undefined

/** Hands glibc's free pages back to the system (malloc_trim); a no-op where libc has no such call. */
export function trimHeap(): void {
  if (trim === undefined) {
    try {
      const lib = (require('bun:ffi') as Ffi).dlopen('libc.so.6', { malloc_trim: { args: ['u64'], returns: 'i32' } })
      trim = () => void lib.symbols.malloc_trim(0)
    } catch {
      trim = null
    }
  }
  trim?.()
}
