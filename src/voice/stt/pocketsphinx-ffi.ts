import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

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
    })
    const ps = ffi.dlopen('libpocketsphinx.so.3', {
      ps_args: { args: [], returns: 'ptr' },
      ps_init: { args: ['ptr'], returns: 'ptr' },
      ps_start_utt: { args: ['ptr'], returns: 'i32' },
      ps_process_raw: { args: ['ptr', 'ptr', 'u64', 'i32', 'i32'], returns: 'i32' },
      ps_end_utt: { args: ['ptr'], returns: 'i32' },
      ps_get_hyp: { args: ['ptr', 'ptr'], returns: 'ptr' },
      ps_free: { args: ['ptr'], returns: 'i32' },
    })
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

/** One decoder: 16 kHz input only (the en-us acoustic model's rate). */
export class SphinxDecoder {
  private readonly score = new Int32Array(1)

  private constructor(
    private readonly n: Native,
    private readonly handle: unknown,
  ) {}

  static create(n: Native, mode: SphinxMode, modelDir: string): SphinxDecoder {
    const args = ['-hmm', join(modelDir, 'en-us'), '-dict', join(modelDir, 'cmudict-en-us.dict'), '-samprate', '16000', '-logfn', '/dev/null']
    const grammar = mode === 'dictation' ? undefined : grammarFile(mode)
    if (grammar) args.push('-jsgf', grammar.file)
    else args.push('-lm', join(modelDir, 'en-us.lm.bin'))
    try {
      const bufs = args.map((a) => Buffer.from(`${a}\0`))
      const argv = new BigUint64Array(bufs.map((b) => BigInt(n.ffi.ptr(b))))
      const config = n.sb.cmd_ln_parse_r(null, n.ps.ps_args(), args.length, n.ffi.ptr(argv), 1)
      if (!config) throw new Error('pocketsphinx rejected its configuration')
      const handle = n.ps.ps_init(config)
      if (!handle) throw new Error(`pocketsphinx could not load the model in ${modelDir}`)
      return new SphinxDecoder(n, handle)
    } finally {
      if (grammar) rmSync(grammar.dir, { recursive: true, force: true })
    }
  }

  /**
   * Decodes one whole utterance. Fed in one call with full_utt set: fed frame by frame, the
   * 5prealpha decoder carries state from one utterance into the next and its answers drift.
   */
  decode(samples: Int16Array): string {
    const { ps, ffi } = this.n
    if (ps.ps_start_utt(this.handle) < 0) throw new Error('pocketsphinx could not start an utterance')
    if (samples.length > 0 && ps.ps_process_raw(this.handle, ffi.ptr(samples), samples.length, 0, 1) < 0) {
      ps.ps_end_utt(this.handle)
      throw new Error('pocketsphinx failed to process audio')
    }
    ps.ps_end_utt(this.handle)
    const p = ps.ps_get_hyp(this.handle, ffi.ptr(this.score))
    return p ? new ffi.CString(p).toString() : ''
  }

  free(): void {
    this.n.ps.ps_free(this.handle)
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
